// `baton env test --serve <admin-url> --workspace <id>` (issue 36 point 1): a real, long-lived `baton serve` on
// the namespace driver with a pool of one ready box lends the box; the built CLI rehearses the fixture repository
// in it through the admin API and passes every step with the evidence and the disclosure; the box was the pool's
// (its ref is the pooled box's name) and is deleted afterwards, also when the run is interrupted. The admin token,
// the box's turn token and lease and the seed's secret values appear in no output. A wrong admin token, a checkout
// outside the service's --checkout-root, a repository the workspace does not have and a service without a driver
// each stop the run with a message naming the fix. On a service whose boxes go out through a `baton proxy`, the
// result names that proxy as the box's egress.
import { randomBytes } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChildService, startChild } from "../../src/testing/services.js";
import { ADMIN_PATHS, HEADERS, SandboxListResponseSchema } from "../../src/transport/wire.js";
import { BATON_BIN, runBaton } from "../helpers/cli.js";
import {
  ACTIVATION_CANARIES,
  ACTIVATION_SEED,
  FIXTURES,
  type ServeHandle,
  startServe,
} from "../helpers/serve.js";

const REPOS = join(FIXTURES, "repos");
const CHECKOUT = join(REPOS, "acme-api");
/** Turn tokens and leases as the service mints them (src/server/primitives/tokens.ts). */
const BOX_CREDENTIAL = /\bbt[tl]_[A-Za-z0-9_-]{20,}/;

/** The service's sandboxes of ws_acme made by env test runs (a fresh `env-test-` engagement each). */
async function envTestSandboxes(serve: ServeHandle) {
  const url = new URL(ADMIN_PATHS.sandboxes, serve.adminUrl);
  url.searchParams.set("workspaceId", "ws_acme");
  const response = await fetch(url, { headers: { [HEADERS.adminToken]: serve.adminToken } });
  expect(response.status).toBe(200);
  return SandboxListResponseSchema.parse(await response.json()).sandboxes.filter((box) =>
    box.engagementId.startsWith("env-test-"),
  );
}

/** The folders of this service's ready pooled boxes (namespace driver: one folder per box, named by the pool). */
function pooledBoxes(serve: ServeHandle): string[] {
  const state = join(tmpdir(), "baton-sandbox-ns");
  const owner = `service:${dirname(serve.dbPath)}`;
  const found: string[] = [];
  for (const service of readdirSync(state).filter((name) => name.startsWith("service-")))
    for (const name of readdirSync(join(state, service)).filter((n) => n.startsWith("baton-sandbox-pool-"))) {
      const box = join(state, service, name);
      try {
        if (
          (JSON.parse(readFileSync(join(box, "box.json"), "utf8")) as { owner?: string }).owner?.startsWith(
            owner,
          )
        )
          found.push(box);
      } catch {
        // Being made (no box.json yet) or being removed.
      }
    }
  return found;
}

/** Whether a process with exactly this argv runs on the machine (read from /proc: no procps needed). */
function processRunning(argv: string[]): true | undefined {
  const wanted = `${argv.join("\0")}\0`;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8") === wanted) return true;
    } catch {
      // The process ended while we looked.
    }
  }
  return undefined;
}

async function until<T>(what: string, check: () => T | undefined | Promise<T | undefined>, ms = 90_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("baton env test --serve on a real baton serve (namespace driver, pool of one)", () => {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), "baton-envtest-serve-")));
  let serve: ServeHandle;
  const envTest = (checkout: string, flags: string[] = [], token = serve.adminToken) =>
    runBaton(
      [
        "env",
        "test",
        checkout,
        "--repository",
        "acme/api",
        "--serve",
        serve.adminUrl,
        "--workspace",
        "ws_acme",
        ...flags,
      ],
      { env: { BATON_ADMIN_TOKEN: token } },
    );
  const noSecrets = (output: string) => {
    expect(output).not.toContain(serve.adminToken);
    expect(output).not.toMatch(BOX_CREDENTIAL);
    for (const canary of ACTIVATION_CANARIES) expect(output).not.toContain(canary);
  };

  beforeAll(async () => {
    serve = await startServe({
      seed: ACTIVATION_SEED,
      args: ["--sandbox-driver", "namespace", "--checkout-root", REPOS, "--sandbox-pool-size", "1"],
    });
  }, 120_000);
  afterAll(async () => {
    await serve?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("rehearses the fixture repository in the pool's ready box, every step passing, and deletes the box", async () => {
    const ready = await until("the pool's ready box", () => pooledBoxes(serve)[0]);
    const run = await envTest(CHECKOUT, ["--json"]);
    expect(run.exitCode, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.steps.map((s: { name: string; ok: boolean }) => `${s.name}:${s.ok}`)).toEqual([
      "lint:true",
      "provision:true",
      "activate:true",
      "dockerfile:true",
      "startup:true",
      "disclose:true",
    ]);
    expect(result).toMatchObject({ ok: true, repository: "acme/api", driver: "namespace" });
    expect(result.image).toEqual(expect.any(String));
    // The service runs no egress proxy (no --proxy-url): the box reaches only the service.
    expect(result.egress).toEqual({ proxy: "none", address: null });
    expect(result.evidence).toMatchObject({ outcome: "succeeded", repository: "acme/api" });
    expect(result.disclosure).toContain("Environment disclosure: acme/api");
    // The service's exec answers at the end: the steps come after the fact, on stderr.
    expect(run.stderr).toContain("baton env test: provision…");
    expect(run.stderr).toMatch(/^baton env test: startup ok \(\d+ ms\)$/m);

    // The box the run used was the pool's ready one (the pool names its boxes), and is deleted with its folder.
    const [used, ...others] = await envTestSandboxes(serve);
    expect(others).toEqual([]);
    expect(used!.ref).toBe(ready);
    expect(used!.repository).toBe("acme/api");
    expect(used!.state).toBe("deleted");
    expect(existsSync(used!.ref!)).toBe(false);
    noSecrets(run.stdout + run.stderr);
  });

  it("prints the steps and the service's egress in human form, and a second run gets a box of its own", async () => {
    const before = (await envTestSandboxes(serve)).length;
    const run = await envTest(CHECKOUT);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      new RegExp(
        `^baton env test: acme/api in a namespace sandbox \\(.+\\) of the service at ${serve.adminUrl}$`,
        "m",
      ),
    );
    expect(run.stdout).toContain(`  egress: no egress proxy: the service at ${serve.adminUrl} has none`);
    expect(run.stdout).toMatch(/^ {2}startup +ok +\d+ ms$/m);
    expect(run.stdout).toMatch(/^baton env test: passed in [\d.]+ s$/m);
    const boxes = await envTestSandboxes(serve);
    expect(boxes).toHaveLength(before + 1);
    // Never the same box twice, and none left.
    expect(new Set(boxes.map((box) => box.ref)).size).toBe(boxes.length);
    expect(boxes.every((box) => box.state === "deleted")).toBe(true);
    noSecrets(run.stdout + run.stderr);
  });

  it("refuses a wrong admin token naming BATON_ADMIN_TOKEN, printing no token", async () => {
    const canary = `canary-admin-token-${randomBytes(16).toString("hex")}`;
    const before = (await envTestSandboxes(serve)).length;
    const run = await envTest(CHECKOUT, ["--json"], canary);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("the service refused the admin token (401");
    expect(run.stderr).toContain("set BATON_ADMIN_TOKEN to the token baton serve");
    expect(JSON.parse(run.stdout).error).toMatchObject({ code: "unauthorised" });
    expect(run.stdout + run.stderr).not.toContain(canary);
    noSecrets(run.stdout + run.stderr);
    expect(await envTestSandboxes(serve)).toHaveLength(before);
  });

  it("passes on the service's refusal of a checkout outside its --checkout-root, with the fix", async () => {
    const outside = join(tmp, "acme-api");
    cpSync(CHECKOUT, outside, { recursive: true });
    const run = await envTest(outside, ["--json"]);
    expect(run.exitCode).toBe(1);
    const message = JSON.parse(run.stdout).error.message as string;
    expect(message).toContain(`the service at ${serve.adminUrl} refused the checkout ${outside}`);
    expect(message).toContain(`is not under the checkout root ${realpathSync(REPOS)}`);
    expect(message).toContain("give a folder under its --checkout-root");
  });

  it("names a repository the workspace does not have, and deletes the box", async () => {
    const run = await runBaton(
      [
        "env",
        "test",
        CHECKOUT,
        "--repository",
        "acme/nope",
        "--serve",
        serve.adminUrl,
        "--workspace",
        "ws_acme",
      ],
      { env: { BATON_ADMIN_TOKEN: serve.adminToken } },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `acme/nope is not a repository of workspace ws_acme on ${serve.adminUrl}; with --serve the environment is the one that service holds`,
    );
    const boxes = await envTestSandboxes(serve);
    expect(boxes.find((box) => box.repository === "acme/nope")).toMatchObject({ state: "deleted" });
  });

  it("refuses flags the service decides, and --serve without --workspace, before asking it for a box", async () => {
    for (const [flags, message] of [
      [["--serve", "http://127.0.0.1:9"], "--serve and --workspace go together"],
      [
        ["--serve", "http://127.0.0.1:9", "--workspace", "ws_acme", "--driver", "docker"],
        "--driver cannot be used with --serve",
      ],
      [
        ["--serve", "http://127.0.0.1:9", "--workspace", "ws_acme", "--no-proxy"],
        "--no-proxy cannot be used with --serve",
      ],
      [
        ["--serve", "http://127.0.0.1:9", "--workspace", "ws_acme", "--ready-command", "true"],
        "--ready-command cannot be used with --serve",
      ],
    ] as const) {
      const run = await runBaton(["env", "test", CHECKOUT, ...flags]);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain(message);
    }
  });

  it("says nothing listens at an unreachable service, naming --serve", async () => {
    const run = await runBaton(
      [
        "env",
        "test",
        CHECKOUT,
        "--repository",
        "acme/api",
        "--serve",
        "http://127.0.0.1:9",
        "--workspace",
        "ws_acme",
      ],
      { env: { BATON_ADMIN_TOKEN: serve.adminToken } },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("nothing listens at http://127.0.0.1:9");
    expect(run.stderr).toContain("point --serve at its admin listener");
  });
});

describe("baton env test --serve when interrupted or without a driver", () => {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), "baton-envtest-serve-root-")));
  let serve: ServeHandle;
  let bare: ServeHandle;

  beforeAll(async () => {
    // A startup script that takes its time, so Ctrl-C arrives while the box runs it.
    cpSync(join(REPOS, "acme-api"), join(tmp, "acme-api"), { recursive: true });
    writeFileSync(join(tmp, "acme-api", "scripts", "start.sh"), "#!/bin/sh\nsleep 120\n", { mode: 0o755 });
    serve = await startServe({
      seed: ACTIVATION_SEED,
      args: ["--sandbox-driver", "namespace", "--checkout-root", tmp],
    });
    bare = await startServe({ seed: ACTIVATION_SEED });
  }, 120_000);
  afterAll(async () => {
    await serve?.stop();
    await bare?.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("deletes the box when interrupted with Ctrl-C while the box works", async () => {
    const child = execa(
      process.execPath,
      [
        BATON_BIN,
        "env",
        "test",
        join(tmp, "acme-api"),
        "--repository",
        "acme/api",
        "--serve",
        serve.adminUrl,
        "--workspace",
        "ws_acme",
      ],
      { reject: false, env: { BATON_ADMIN_TOKEN: serve.adminToken, BATON_LOG_LEVEL: "" } },
    );
    const box = await until("the run's box", async () =>
      (await envTestSandboxes(serve)).find((made) => made.state === "running"),
    );
    // The rehearsal has reached the startup script (its `sleep 120` runs) before the interruption.
    await until("the startup script in the box", () => processRunning(["sleep", "120"]));
    child.kill("SIGINT");
    const ended = await child;
    expect(ended.exitCode).toBe(1);
    expect(String(ended.stderr)).toContain("interrupted; the box was deleted");
    const [after] = await envTestSandboxes(serve);
    expect(after).toMatchObject({ sandboxId: box.sandboxId, state: "deleted" });
    expect(existsSync(box.ref!)).toBe(false);
  }, 120_000);

  it("says the service runs no sandbox driver, naming the flag", async () => {
    const run = await runBaton(
      [
        "env",
        "test",
        join(tmp, "acme-api"),
        "--repository",
        "acme/api",
        "--serve",
        bare.adminUrl,
        "--workspace",
        "ws_acme",
      ],
      { env: { BATON_ADMIN_TOKEN: bare.adminToken } },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`the service at ${bare.adminUrl} runs no sandbox driver`);
    expect(run.stderr).toContain("--sandbox-driver docker|namespace");
  });
});

// A service whose boxes go out only through a `baton proxy` (as operators run it): env test reports that proxy as
// the box's egress, at the address the box reaches it, and the startup script meets its variables.
describe("baton env test --serve on a service with an egress proxy", () => {
  const tmp = realpathSync(mkdtempSync(join(tmpdir(), "baton-envtest-serve-proxy-")));
  const adminToken = randomBytes(32).toString("hex");
  const children: ChildService[] = [];
  let adminUrl: string;

  beforeAll(async () => {
    cpSync(join(REPOS, "acme-api"), join(tmp, "root", "acme-api"), { recursive: true });
    writeFileSync(
      join(tmp, "root", "acme-api", "scripts", "start.sh"),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: bash expansions, not a template
      '#!/bin/bash\necho "HTTP_PROXY ${HTTP_PROXY:+set} HTTPS_PROXY ${HTTPS_PROXY:+set}"\n',
      { mode: 0o755 },
    );
    const env = {
      ...process.env,
      BATON_LOG_LEVEL: "",
      BATON_ADMIN_TOKEN: adminToken,
      BATON_PROXY_TOKEN: randomBytes(32).toString("hex"),
    };
    // The admin listener's port first, so the proxy and the service can each be told where the other is.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const adminPort = (probe.address() as { port: number }).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const proxy = await startChild(
      [
        "proxy",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--json",
        "--serve-url",
        `http://127.0.0.1:${adminPort}`,
        "--state-dir",
        join(tmp, "proxy-state"),
      ],
      env,
    );
    children.push(proxy);
    const serve = await startChild(
      [
        "serve",
        "--port",
        "0",
        "--admin-listen",
        `127.0.0.1:${adminPort}`,
        "--db",
        join(tmp, "serve", "serve.sqlite"),
        "--seed",
        ACTIVATION_SEED,
        "--json",
        "--sandbox-driver",
        "namespace",
        "--sandbox-pool-size",
        "0",
        "--sandbox-proxy",
        new URL(String(proxy.ready.url)).host,
        "--checkout-root",
        join(tmp, "root"),
      ],
      env,
    );
    children.push(serve);
    adminUrl = String(serve.ready.adminUrl);
  }, 180_000);
  afterAll(async () => {
    for (const child of children.reverse()) await child.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("reports the service's proxy as the box's egress, which the startup script goes out through", async () => {
    const run = await runBaton(
      [
        "env",
        "test",
        join(tmp, "root", "acme-api"),
        "--repository",
        "acme/api",
        "--serve",
        adminUrl,
        "--workspace",
        "ws_acme",
        "--json",
      ],
      { env: { BATON_ADMIN_TOKEN: adminToken } },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.egress).toEqual({ proxy: "service", address: expect.stringMatching(/^[\d.]+:\d+$/) });
    expect(result.evidence.output.head).toBe("HTTP_PROXY set HTTPS_PROXY set\n");
    expect(run.stdout + run.stderr).not.toContain(adminToken);
    expect(run.stdout + run.stderr).not.toMatch(BOX_CREDENTIAL);
  });
});
