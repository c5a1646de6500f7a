// A deploy keeps the boxes (issue 21 item 11), on both real drivers with a real `baton serve` child process and a
// real SQLite file: a box with uncommitted work survives kill -9 and a graceful stop of the service, the restarted
// service adopts it (same box, forwarders reopened on the ports its environment names), `baton env activate` run
// inside it works against the restarted service, and a turn that was running when the service died is resumed in
// the same box, never left `running`.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { DriverName } from "../../../src/server/adapters/sandboxes/driver.js";
import { createDockerDriver } from "../../../src/server/adapters/sandboxes/drivers/docker.js";
import { createNamespaceDriver } from "../../../src/server/adapters/sandboxes/drivers/namespace.js";
import { resolveSandboxImage } from "../../../src/server/adapters/sandboxes/image.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { ADMIN_PATHS, HEADERS } from "../../../src/transport/wire.js";
import { pollUntil } from "../../helpers/poll.js";
import { DRIVERS } from "../../helpers/sandbox-drivers.js";
import {
  ACTIVATION_SEED,
  FIXTURES,
  killLeftoverServes,
  type ServeHandle,
  startServe,
} from "../../helpers/serve.js";

const dirs: string[] = [];
afterEach(async () => {
  await killLeftoverServes();
  for (const service of services.splice(0)) await removeServiceBoxes(service);
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** The admin surface: its own listener once the service has one (`adminUrl`), the public one before. */
const adminBase = (serve: ServeHandle) =>
  (serve as ServeHandle & { adminUrl?: string }).adminUrl ?? serve.url;
const adminFetch = async (serve: ServeHandle, path: string, init: RequestInit = {}) => {
  const response = await fetch(new URL(path, adminBase(serve)), {
    ...init,
    headers: { "content-type": "application/json", [HEADERS.adminToken]: serve.adminToken },
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`admin ${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
};
interface SandboxView {
  sandboxId: string;
  engagementId: string;
  ref: string;
  state: string;
  transitions: { reason: string }[];
}
const showSandbox = async (serve: ServeHandle, id: string) =>
  (await adminFetch(serve, ADMIN_PATHS.sandbox.replace(":id", id))) as unknown as SandboxView;
const execIn = async (
  serve: ServeHandle,
  sandbox: { sandboxId: string; engagementId: string; workspaceId?: string },
  script: string,
  extra: { env?: Record<string, string>; stdin?: string } = {},
) =>
  (await adminFetch(serve, ADMIN_PATHS.sandboxExec.replace(":id", sandbox.sandboxId), {
    method: "POST",
    body: JSON.stringify({
      workspaceId: sandbox.workspaceId ?? WS,
      engagementId: sandbox.engagementId,
      command: ["bash", "-c", script],
      timeoutSeconds: 120,
      ...extra,
    }),
  })) as { exitCode: number; stdout: string; stderr: string };

const WS = "ws_acme";

/**
 * What a graceful stop leaves on purpose (the boxes, their network and rules), removed once the test is done, also
 * when it failed half-way: a driver started on the service's state folder adopts them and removes them.
 */
const services: { driver: DriverName; serviceDir: string }[] = [];
async function removeServiceBoxes({ driver, serviceDir }: { driver: DriverName; serviceDir: string }) {
  const image = resolveSandboxImage();
  const adopted =
    driver === "docker"
      ? await createDockerDriver({ endpoints: {}, serviceDir })
      : await createNamespaceDriver({
          endpoints: {},
          rootfs: image.rootfs,
          batonDir: image.batonDir,
          serviceDir,
        });
  await adopted.close();
}

describe.each(DRIVERS)("a deploy on the %s driver", (driver) => {
  it("keeps a box with uncommitted work through kill -9 and a graceful stop; activation inside works after each", {
    timeout: 600_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "baton-deploy-"));
    dirs.push(dir);
    services.push({ driver, serviceDir: join(dir, "work") });
    // As operators run it: with the default pool of ready boxes, whose boxes a stop drains while the sandbox's own
    // box stays (test/container/sandboxes/pool.test.ts hands a box out of the pool and adopts it after a restart).
    const serve = await startServe({
      dir,
      seed: ACTIVATION_SEED,
      args: ["--sandbox-driver", driver, "--sandbox-pool-size", "2"],
    });
    const made = (await (
      await serve.admin(ADMIN_PATHS.sandboxes, { workspaceId: WS, engagementId: `deploy-${driver}` })
    ).json()) as { sandboxId: string; engagementId: string; env: Record<string, string> };
    const sandbox = { sandboxId: made.sandboxId, engagementId: made.engagementId };
    const before = await showSandbox(serve, sandbox.sandboxId);
    // The repository's files come in over stdin (not the admin `checkout` field, whose source folders the
    // operator restricts), then a commit, then work nobody committed yet.
    const tarball = execFileSync("tar", ["-C", join(FIXTURES, "repos", "acme-api"), "-c", "."]).toString(
      "base64",
    );
    const setUp = await execIn(
      serve,
      sandbox,
      `set -e; mkdir -p ~/checkouts/acme/api; cd ~/checkouts/acme/api; base64 -d | tar -x
       git init -q; git add -A; git -c user.name=A -c user.email=a@acme.test commit -qm base
       echo "half-done refactor" > WIP.md`,
      { stdin: tarball },
    );
    expect(setUp).toMatchObject({ exitCode: 0 });

    // In the box, with only the box's own variables (the ones it was made with, naming the forwarders' ports).
    const activateInside = async () => {
      const script = "cd ~/checkouts/acme/api && baton env activate acme/api --json";
      if (driver === "docker") {
        // `docker exec` bypasses the service entirely: with the variables the box was given when it was made,
        // which the container's configuration does not hold (a box from the pool of ready boxes was created
        // before any task; the driver gives them to each command; --env NAME takes the value from this process's
        // environment, not the argument list).
        const credentials = made.env;
        const out = execFileSync(
          "docker",
          [
            "exec",
            ...Object.keys(credentials).flatMap((name) => ["--env", name]),
            before.ref,
            "bash",
            "-c",
            script,
          ],
          { encoding: "utf8", env: { ...process.env, ...credentials } },
        );
        return { exitCode: 0, stdout: out };
      }
      // A namespace box has no process of its own between commands: the service runs the command in it, with
      // the sandbox's credentials as any command of the agent's has them (its BATON_OPS_URL is the box's own).
      return execIn(serve, sandbox, script, {
        env: {
          BATON_TURN_TOKEN: made.env.BATON_TURN_TOKEN!,
          BATON_SANDBOX_LEASE: made.env.BATON_SANDBOX_LEASE!,
        },
      });
    };
    const uncommitted = async () =>
      (await execIn(serve, sandbox, "cd ~/checkouts/acme/api && git status --porcelain && cat WIP.md"))
        .stdout;

    const first = await activateInside();
    expect(first, JSON.stringify(first)).toMatchObject({ exitCode: 0 });

    for (const how of ["kill -9", "graceful stop"] as const) {
      if (how === "kill -9") await serve.kill9();
      else expect(await serve.stop()).toBe(0);
      await serve.restart();
      const after = await showSandbox(serve, sandbox.sandboxId);
      expect({ how, state: after.state, ref: after.ref }).toEqual({ how, state: "running", ref: before.ref });
      expect(after.transitions.map((t) => t.reason)).not.toContain("lost");
      expect(await uncommitted()).toBe("?? WIP.md\nhalf-done refactor\n");
      const activated = await activateInside();
      expect({ how, exitCode: activated.exitCode }).toEqual({ how, exitCode: 0 });
      expect(JSON.parse(activated.stdout)).toMatchObject({ state: "succeeded" });
    }
  });

  it("resumes a turn that was running when the service was killed, in the same box with its files", {
    timeout: 600_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "baton-deploy-turn-"));
    dirs.push(dir);
    services.push({ driver, serviceDir: join(dir, "work") });
    const token = "btn_deploy-turn-member-000000000000";
    await writeFile(
      join(dir, "seed.json"),
      JSON.stringify({
        workspaces: [
          {
            id: "ws_deploy",
            name: "Deploy",
            members: [{ email: "dev@deploy.test", role: "member", token }],
            repositories: [{ repository: "deploy/app" }],
          },
        ],
      }),
    );
    // The agent program, run in the box: the first attempt leaves work in the box and hangs (the service dies
    // under it); the next one answers with what it found.
    const agent = join(dir, "agent.sh");
    await writeFile(
      agent,
      `#!/bin/bash
set -eu
cat > /dev/null
n=$(( $(cat ~/attempts 2>/dev/null || echo 0) + 1 )); echo "$n" > ~/attempts
if [ "$n" = 1 ]; then echo "left by attempt 1" > ~/wip.txt; sleep 600; fi
printf '{"kind":"response","body":"attempt %s found: %s"}\\n' "$n" "$(cat ~/wip.txt)"
`,
      { mode: 0o755 },
    );
    const serve = await startServe({
      dir,
      seed: join(dir, "seed.json"),
      args: ["--sandbox-driver", driver, "--agent-command", agent],
      env: { BATON_LOG_LEVEL: "info" },
    });
    const api = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(new URL(path, serve.url), {
        ...init,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      });
      return (await response.json()) as Record<string, unknown>;
    };
    const started = await api(API_PATHS.tasks("ws_deploy"), {
      method: "POST",
      body: JSON.stringify({ prompt: "refactor the parser" }),
    });
    const taskId = (started.task as { id: string } | undefined)?.id as string;
    expect(taskId, JSON.stringify(started)).toMatch(/./);
    const boxOfTask = async () => {
      const list = (await adminFetch(serve, `${ADMIN_PATHS.sandboxes}?workspaceId=ws_deploy`)) as {
        sandboxes: SandboxView[];
      };
      return list.sandboxes.filter((s) => s.engagementId === taskId);
    };
    const boxes = await pollUntil(boxOfTask, (list) => list.length === 1, { timeoutMs: 120_000 });
    expect(boxes, serve.output()).toHaveLength(1);
    const sandbox = { sandboxId: boxes[0]!.sandboxId, engagementId: taskId, workspaceId: "ws_deploy" };
    await pollUntil(
      async () => (await execIn(serve, sandbox, "cat ~/wip.txt 2>/dev/null || true")).stdout,
      (text) => text.includes("left by attempt 1"),
      { timeoutMs: 120_000 },
    );
    expect((await api(API_PATHS.task("ws_deploy", taskId))).status).toBe("implementing");

    await serve.kill9();
    await serve.restart();
    const task = await pollUntil(
      () => api(API_PATHS.task("ws_deploy", taskId)),
      (t) => !["pending", "implementing"].includes(t.status as string),
      { timeoutMs: 180_000 },
    );
    expect(task.status).toBe("replied");
    const messages = (await api(API_PATHS.messages("ws_deploy", taskId))) as {
      messages: { role: string; body: string }[];
    };
    expect(messages.messages.at(-1)).toMatchObject({
      role: "agent",
      body: "attempt 2 found: left by attempt 1",
    });
    // One box all along: the resumed turn ran in the box the killed service made.
    expect((await boxOfTask()).map((s) => s.sandboxId)).toEqual([sandbox.sandboxId]);
  });
});
