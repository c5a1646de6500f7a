// What the CLI says when something is off, as a new user meets it: each message names what went wrong and the
// fix that works. A real `baton serve` (no mail relay), the built CLI, temporary HOMEs.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { expectNoCanary, readTree } from "../../helpers/canary.js";
import { type BatonRun, runBaton } from "../../helpers/cli.js";
import {
  ACTIVATION_CANARIES,
  ACTIVATION_SEED,
  createSandbox,
  createTurn,
  killLeftoverServes,
  LOUD,
  makeSandboxHome,
  type SandboxHome,
  type ServeHandle,
  startServe,
} from "../../helpers/serve.js";

let serve: ServeHandle;
let home: SandboxHome;
const runs: BatonRun[] = [];
let engagements = 0;

async function baton(args: string[], env: Record<string, string>): Promise<BatonRun> {
  const run = await runBaton(args, { env });
  runs.push(run);
  return run;
}

async function sandboxEnv(
  options: { workspaceId?: string; leaseTtlSeconds?: number; turnTtlSeconds?: number } = {},
) {
  const sandbox = await createSandbox(serve, {
    workspaceId: options.workspaceId ?? "ws_acme",
    engagementId: `eng_messages_${engagements++}`,
    ...(options.leaseTtlSeconds ? { leaseTtlSeconds: options.leaseTtlSeconds } : {}),
    ...(options.turnTtlSeconds ? { turnTtlSeconds: options.turnTtlSeconds } : {}),
  });
  return { sandbox, env: home.env(sandbox) };
}

beforeAll(async () => {
  serve = await startServe({ seed: ACTIVATION_SEED, env: LOUD });
});

afterAll(async () => {
  await serve.stop();
  await killLeftoverServes();
});

beforeEach(async () => {
  runs.length = 0;
  home = await makeSandboxHome({ "acme/api": "acme-api", "acme/web": "acme-web" });
});

afterEach(async () => {
  expectNoCanary(
    [...runs.flatMap((r) => [r.stdout, r.stderr]), serve.output(), await readTree(home.home)],
    ACTIVATION_CANARIES,
  );
  await home.remove();
});

describe("expired credentials name the credential to renew", () => {
  it("an expired lease asks for a new sandbox lease, since a new turn with the same lease still fails", async () => {
    const { sandbox, env } = await sandboxEnv({ leaseTtlSeconds: 1 });
    await sleep(1_500);
    const turnToken = await createTurn(serve, sandbox.engagementId);
    const run = await baton(["env", "activate", "acme/api"], { ...env, BATON_TURN_TOKEN: turnToken });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("ask the orchestrator for a new sandbox lease");
    expect(run.stderr).toContain("a new turn does not renew it");
    expect(run.stderr).not.toContain("ask the orchestrator for a new turn.");
  });

  it("an expired turn token asks for a new turn", async () => {
    const { env } = await sandboxEnv({ turnTtlSeconds: 1 });
    await sleep(1_500);
    const run = await baton(["env", "activate", "acme/api"], env);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("BATON_TURN_TOKEN has expired: ask the orchestrator for a new turn token");
  });
});

describe("not found says what, and that names are case-sensitive", () => {
  it("op get of an id that does not exist names the id", async () => {
    const { env } = await sandboxEnv();
    const run = await baton(["op", "get", "hello"], env);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("the service has no operation hello");
    expect(run.stderr).toContain("case-sensitive");
    expect(run.stderr).not.toContain("found nothing of this sandbox's");
  });

  it.each(["acme/apii", "Acme/API"])(
    "env activate %s names the repository the workspace lacks",
    async (repo) => {
      const { env } = await sandboxEnv();
      const run = await baton(["env", "activate", repo, "--checkout", home.checkout("acme/api")], env);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain(`the workspace has no repository ${repo}`);
      expect(run.stderr).toContain("case-sensitive");
    },
  );

  it("op get of an unknown capability request names it", async () => {
    const { env } = await sandboxEnv();
    const run = await baton(["op", "get", "cr_nope"], env);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("no capability request cr_nope");
  });
});

describe("refusals say what to do", () => {
  it("rollout disabled says it once and says how to carry on", async () => {
    const { env } = await sandboxEnv({ workspaceId: "ws_norollout" });
    const run = await baton(["env", "activate", "old/app", "--checkout", home.checkout("acme/api")], env);
    expect(run.exitCode).toBe(6);
    expect(run.stderr.match(/not enabled for this workspace/g)).toHaveLength(1);
    expect(run.stderr).toContain("set the project up by hand and say so in the pull request");
  });

  it("a corrupt environment.sh names the file and how to write it again", async () => {
    const file = join(home.home, ".baton", "environment.sh");
    await mkdir(join(home.home, ".baton"), { recursive: true, mode: 0o700 });
    await writeFile(file, "export A=1\n", { mode: 0o600 });
    const run = await baton(["env", "show"], { HOME: home.home });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(file);
    expect(run.stderr).toContain("baton env activate <owner/name>");
  });
});

describe("what succeeded says what happened and what comes next", () => {
  it("op get of a finished activation says what was written rather than just to run it again", async () => {
    const { env } = await sandboxEnv();
    const run = await baton(["env", "activate", "acme/web", "--json"], env);
    expect(run.exitCode, run.stderr).toBe(0);
    const id = (JSON.parse(run.stdout) as { id: string }).id;
    const shown = await baton(["op", "get", id], env);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain("wrote ~/.baton/environment.sh");
    expect(shown.stdout).not.toContain("To write its environment here, run");
  });

  it("request-capability on a service without a mail relay says the e-mail is queued, not sent", async () => {
    const { env } = await sandboxEnv();
    const run = await baton(
      [
        "env",
        "request-capability",
        "--repo",
        "acme/api",
        "--capability",
        "registry_access",
        "--target",
        "npm.acme.test",
        "--reason",
        "npm install gets 401 from the private registry",
      ],
      env,
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("queued, not sent");
    expect(run.stdout).not.toContain("Owners and admins are e-mailed");
    const json = await baton(
      [
        "env",
        "request-capability",
        "--repo",
        "acme/api",
        "--capability",
        "registry_access",
        "--target",
        "npm.acme.test",
        "--reason",
        "again",
        "--json",
      ],
      env,
    );
    expect(JSON.parse(json.stdout).emailDelivery).toBe("queued");
  });

  it("evidence that changes nothing says why", async () => {
    const { env } = await sandboxEnv();
    const base = [
      "env",
      "request-capability",
      "--repo",
      "acme/api",
      "--capability",
      "api_key",
      "--target",
      "api.acme.test",
    ];
    expect((await baton([...base, "--reason", "the API answers 401 without a key"], env)).exitCode).toBe(0);
    const permission = await baton([...base, "--evidence", "permission", "--status", "403"], env);
    expect(permission.exitCode, permission.stderr).toBe(0);
    expect(permission.stdout).toContain(
      "the request stays open, because no access has been supplied for it yet",
    );
    const network = await baton([...base, "--evidence", "network"], env);
    expect(network.stdout).toContain("network failures are recorded but never change a request");
  });
});

describe("client commands log at debug level, never a credential", () => {
  it("BATON_LOG_LEVEL=debug logs each request of env activate and op get on stderr", async () => {
    const { sandbox, env } = await sandboxEnv();
    const run = await baton(["env", "activate", "acme/api", "--json"], { ...env, BATON_LOG_LEVEL: "debug" });
    expect(run.exitCode, run.stderr).toBe(0);
    const logs = run.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { msg: string; method?: string; path?: string; status?: number });
    // The service answers the activation's POST with the finished operation, so activation is one request.
    expect(logs.filter((l) => l.msg === "request").map((l) => `${l.method} ${l.status}`)).toEqual([
      "POST 202",
    ]);
    const operationId = (JSON.parse(run.stdout) as { id: string }).id;
    const get = await baton(["op", "get", operationId], { ...env, BATON_LOG_LEVEL: "debug" });
    expect(get.exitCode, get.stderr).toBe(0);
    const getLogs = get.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { msg: string; method?: string; status?: number });
    expect(getLogs.filter((l) => l.msg === "request").map((l) => `${l.method} ${l.status}`)).toEqual([
      "GET 200",
    ]);
    expect(get.stderr).not.toContain(sandbox.env.BATON_TURN_TOKEN);
    expect(get.stderr).not.toContain(sandbox.env.BATON_SANDBOX_LEASE);
    expect(run.stderr).not.toContain(sandbox.env.BATON_TURN_TOKEN);
    expect(run.stderr).not.toContain(sandbox.env.BATON_SANDBOX_LEASE);

    const quiet = await baton(["env", "activate", "acme/api"], env);
    expect(quiet.stderr).toBe("");
  });
});
