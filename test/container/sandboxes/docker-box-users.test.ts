// Docker boxes run as host users of their own and keep no credential in the container's configuration (issue 35
// C.17): real containers. Two boxes get different uids from the range; a file one box writes is unreadable to the
// other box's uid on the host (through /proc/<pid>/root, where a process that left its box would look); the
// engine's answers about a box (its configuration, and a running command's) hold neither the turn token nor the
// lease, while commands in the box still get both; a uid stays taken across a service restart and is freed on
// removal.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedBox, SandboxDriver } from "../../../src/server/adapters/sandboxes/driver.js";
import { parseUidRange } from "../../../src/server/adapters/sandboxes/drivers/box-uids.js";
import { createDockerDriver } from "../../../src/server/adapters/sandboxes/drivers/docker.js";
import { buildBoxEnvironment } from "../../../src/server/adapters/sandboxes/environment.js";
import { boxName, sandboxImage } from "../../helpers/sandbox-drivers.js";

// A range of its own, so boxes of other tests running at the same time do not change which uid comes next.
const RANGE = parseUidRange("266000-266099");
const docker = new Docker();

describe("Docker boxes: a host uid of their own, no credential in the container's configuration", () => {
  const serviceDir = join(mkdtempSync(join(tmpdir(), "baton-docker-box-users-")), "work");
  const turnToken = `btt_cAnArY${randomBytes(16).toString("hex")}`;
  const lease = `btl_cAnArY${randomBytes(16).toString("hex")}/+=`;
  let driver: SandboxDriver;
  let first: CreatedBox;
  let second: CreatedBox;
  const spec = () => ({
    name: boxName(),
    image: sandboxImage(),
    // The manager's builder: the credentials, and the proxy URLs carrying the lease.
    env: (reach: CreatedBox["reach"]) =>
      buildBoxEnvironment({
        reach: { ...reach, proxy: "100.72.0.1:3128", ops: "100.72.0.1:8080" },
        turnToken,
        lease,
        sandboxEnv: { PLAIN: "kept" },
        secrets: [],
      }),
  });

  beforeAll(async () => {
    driver = await createDockerDriver({ endpoints: {}, serviceDir, uids: RANGE });
    first = await driver.create(spec());
    second = await driver.create(spec());
  }, 120_000);

  afterAll(async () => {
    await driver?.close();
    rmSync(join(serviceDir, ".."), { recursive: true, force: true });
  });

  const uidOf = async (box: CreatedBox) =>
    (await driver.exec(box.ref, ["bash", "-c", "id -u; id -un; echo ~"], { timeoutMs: 30_000 })).stdout;

  it("gives two boxes different uids from the range, each the agent with its home", async () => {
    const [a, b] = [await uidOf(first), await uidOf(second)];
    const [uidA, uidB] = [Number(a.split("\n")[0]), Number(b.split("\n")[0])];
    expect(uidA).not.toBe(uidB);
    for (const [uid, out] of [
      [uidA, a],
      [uidB, b],
    ] as const) {
      expect(uid).toBeGreaterThanOrEqual(RANGE.first);
      expect(uid).toBeLessThanOrEqual(RANGE.last);
      expect(out).toBe(`${uid}\nagent\n/home/agent\n`);
    }
  });

  it("a file one box writes is not readable by the other box's uid on the host", async () => {
    const wrote = await driver.exec(first.ref, ["bash", "-c", "echo private > ~/mine; stat -c %a ~"], {
      timeoutMs: 30_000,
    });
    expect(wrote).toMatchObject({ exitCode: 0, stdout: "700\n" });
    const pid = (await docker.getContainer(first.ref).inspect()).State.Pid;
    const path = `/proc/${pid}/root/home/agent/mine`;
    const readAs = (uid: number) =>
      execa("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "cat", path], {
        reject: false,
      });
    const other = await readAs(Number((await uidOf(second)).split("\n")[0]));
    expect(other.exitCode).not.toBe(0);
    expect(other.stdout).not.toContain("private");
    // Its own uid reads it: the refusal is about the user, not a missing file.
    expect((await readAs(Number((await uidOf(first)).split("\n")[0]))).stdout).toBe("private");
  });

  it("keeps the turn token and the lease out of what the engine says about the box, while commands get both", async () => {
    const running = await driver.spawn(first.ref, ["sleep", "30"], {});
    try {
      const inspected = await docker.getContainer(first.ref).inspect();
      const execs = await Promise.all((inspected.ExecIDs ?? []).map((id) => docker.getExec(id).inspect()));
      expect(execs.length).toBeGreaterThan(0);
      const said = JSON.stringify({ inspected, execs, listed: await docker.listContainers({ all: true }) });
      for (const secret of [turnToken, lease, encodeURIComponent(lease)]) expect(said).not.toContain(secret);
      expect(inspected.Config.Env).toContain("PLAIN=kept");
    } finally {
      await running.kill();
    }
    const inBox = await driver.exec(
      first.ref,
      [
        "bash",
        "-c",
        'printf "%s\\n%s\\n%s\\n%s\\n" "$BATON_TURN_TOKEN" "$BATON_SANDBOX_LEASE" "$HTTPS_PROXY" "$PLAIN"',
      ],
      { timeoutMs: 30_000 },
    );
    expect(inBox.stdout).toBe(
      `${turnToken}\n${lease}\nhttp://baton:${encodeURIComponent(lease)}@100.72.0.1:3128\nkept\n`,
    );
  });

  it("a restarted service gives a new box a uid no kept box has; a removed box's uid is free again", async () => {
    const kept = new Set([await uidOf(first), await uidOf(second)].map((out) => out.split("\n")[0]));
    await driver.detach();
    driver = await createDockerDriver({ endpoints: {}, serviceDir, uids: RANGE });
    const third = await driver.create(spec());
    const uid = (await uidOf(third)).split("\n")[0]!;
    expect(kept.has(uid)).toBe(false);
    await driver.remove(third.ref);
    const fourth = await driver.create(spec());
    expect((await uidOf(fourth)).split("\n")[0]).toBe(uid);
  });
});
