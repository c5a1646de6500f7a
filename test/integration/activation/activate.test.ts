// `baton env activate` and `baton op get` end to end: a real `baton serve` (child process, loopback, SQLite file)
// seeded from fixtures/seeds/activation.json, driven by the built CLI in temporary HOMEs with fixture checkouts.
import { existsSync } from "node:fs";
import { readFile, rm, stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ActivationJsonSchema } from "../../../src/activation/index.js";
import { SavedHandoffSchema } from "../../../src/handoff/index.js";
import { OperationSchema } from "../../../src/transport/wire.js";
import { expectNoCanary, readTree } from "../../helpers/canary.js";
import { type BatonRun, PROJECT_ROOT, runBaton } from "../../helpers/cli.js";
import { pollUntil } from "../../helpers/poll.js";
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

async function baton(args: string[], env: Record<string, string>): Promise<BatonRun> {
  const run = await runBaton(args, { env });
  runs.push(run);
  return run;
}

// One service for the file (each test uses its own engagement); a fresh HOME per test.
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
  // Whatever happened, no canary secret reached any output, log or file.
  expectNoCanary(
    [...runs.flatMap((r) => [r.stdout, r.stderr]), serve.output(), await readTree(home.home)],
    ACTIVATION_CANARIES,
  );
  await home.remove();
});

async function sourceInBash(homeDir: string, names: string[]): Promise<Record<string, string>> {
  const script = `. "$HOME/.baton/environment.sh"; for n in ${names.join(" ")}; do eval "printf '%s=%s\\n' \\"\\$n\\" \\"\\\${$n-<unset>}\\""; done`;
  const { stdout } = await execa("bash", ["-c", script], {
    env: { HOME: homeDir, PATH: process.env.PATH ?? "" },
    extendEnv: false,
  });
  return Object.fromEntries(
    stdout.split("\n").map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
}

describe("baton env activate against a real baton serve", () => {
  it("activates acme/api, then acme/web whose names collide (qualified names appear, acme/api keeps its own), then acme/api again in a later turn with names unchanged", async () => {
    const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_collide" });
    const env = home.env(sandbox);

    const first = await baton(["env", "activate", "acme/api"], env);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toContain("acme/api: DATABASE_URL -> DATABASE_URL");
    expect(first.stdout).toContain("baton dockerfile apply acme/api");
    expect(first.stdout).toContain(". ~/.baton/environment.sh");
    expect(first.stdout).toMatch(/never run .*scripts\/start\.sh directly/);

    const second = await baton(["env", "activate", "acme/web", "--json"], env);
    expect(second.exitCode).toBe(0);
    const web = ActivationJsonSchema.parse(JSON.parse(second.stdout));
    const assigned = Object.fromEntries(
      web.result!.variables.map((v) => [`${v.repository} ${v.name}`, v.assigned]),
    );
    expect(assigned).toMatchObject({
      "acme/api DATABASE_URL": "DATABASE_URL",
      "acme/api PAYMENTS_KEY": "PAYMENTS_KEY",
      "acme/web DATABASE_URL": "REPO_WEB__DATABASE_URL",
      "acme/web PAYMENTS_KEY": "REPO_WEB__PAYMENTS_KEY",
      "acme/web PUBLIC_URL": "PUBLIC_URL",
    });
    const local = (JSON.parse(second.stdout) as { local: Record<string, string> }).local;
    expect(local.environmentFile).toBe(join(home.home, ".baton", "environment.sh"));
    expect(local.handoffFile).toBe(join(home.home, ".baton", "handoffs", "acme__web.json"));

    // A later turn: a new turn token for the same engagement.
    const turnToken = await createTurn(serve, sandbox.engagementId);
    const third = await baton(["env", "activate", "acme/api", "--json"], {
      ...env,
      BATON_TURN_TOKEN: turnToken,
    });
    expect(third.exitCode).toBe(0);
    const again = ActivationJsonSchema.parse(JSON.parse(third.stdout));
    const againAssigned = Object.fromEntries(
      again.result!.variables.map((v) => [`${v.repository} ${v.name}`, v.assigned]),
    );
    expect(againAssigned).toEqual(assigned);
    expect(again.result!.overlayRevision).toBeGreaterThan(web.result!.overlayRevision);

    // The generated file, sourced by real bash, gives the expected names; secrets arrive as placeholders only.
    const values = await sourceInBash(home.home, [
      "DATABASE_URL",
      "REPO_WEB__DATABASE_URL",
      "LOG_LEVEL",
      "PUBLIC_URL",
      "PAYMENTS_KEY",
      "REPO_WEB__PAYMENTS_KEY",
    ]);
    expect(values.DATABASE_URL).toBe("postgres://app@db.acme.test:5432/api");
    expect(values.REPO_WEB__DATABASE_URL).toBe("postgres://web@db.acme.test:5432/web");
    expect(values.LOG_LEVEL).toBe("debug");
    expect(values.PUBLIC_URL).toBe("http://127.0.0.1:8080");
    expect(values.PAYMENTS_KEY).toMatch(/^baton-secret-sec_[0-9a-f]{32}$/);
    expect(values.REPO_WEB__PAYMENTS_KEY).toMatch(/^baton-secret-sec_[0-9a-f]{32}$/);
    expect(values.PAYMENTS_KEY).not.toBe(values.REPO_WEB__PAYMENTS_KEY);

    // The saved handoff follows the contract, with absolute paths inside the checkout and ~/.baton.
    const handoffFile = join(home.home, ".baton", "handoffs", "acme__api.json");
    expect((await stat(handoffFile)).mode & 0o777).toBe(0o600);
    const saved = SavedHandoffSchema.parse(JSON.parse(await readFile(handoffFile, "utf8")));
    expect(saved.repository).toBe("acme/api");
    expect(saved.checkoutPath).toBe(home.checkout("acme/api"));
    expect(saved.managedStartup?.startupScriptPath).toBe(
      join(home.checkout("acme/api"), "scripts", "start.sh"),
    );
    expect(saved.managedStartup?.runPath).toBe(join(home.home, ".baton", "runner", "baton-runner.cjs"));
    expect(saved.managedStartup?.dockerfileStatus).toBe("not_applied");

    // The packaged runner is installed at runPath, byte for byte, and the steps say how to run it.
    const runPath = saved.managedStartup!.runPath!;
    expect(await readFile(runPath, "utf8")).toBe(
      await readFile(join(PROJECT_ROOT, "dist", "runner", "baton-runner.cjs"), "utf8"),
    );
    expect((await stat(runPath)).mode & 0o777).toBe(0o700);
    expect(first.stdout).toContain(`node ${runPath} --repo acme/api`);
    expect(first.stdout).not.toContain("NOT installed");
  });

  it("--checkout points the handoff at another folder", async () => {
    const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_checkout" });
    const run = await baton(["env", "activate", "acme/web", "--checkout", home.checkout("acme/web")], {
      ...home.env(sandbox),
      BATON_CHECKOUT_ROOT: "/nonexistent",
    });
    expect(run.exitCode).toBe(0);
    const saved = SavedHandoffSchema.parse(
      JSON.parse(await readFile(join(home.home, ".baton", "handoffs", "acme__web.json"), "utf8")),
    );
    expect(saved.checkoutPath).toBe(home.checkout("acme/web"));
    expect(saved.managedStartup?.startupScriptPath).toBe(join(home.checkout("acme/web"), "start.sh"));
  });

  it("a handoff path that leads out of the checkout through a symbolic link is refused (exit 1) and nothing is written", async () => {
    const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_link" });
    await rm(join(home.checkout("acme/api"), "AGENTS.md"));
    await symlink("/etc/hostname", join(home.checkout("acme/api"), "AGENTS.md"));
    const run = await baton(["env", "activate", "acme/api"], home.env(sandbox));
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("agentInstructionsPath goes through a symbolic link out of the checkout");
    expect(existsSync(join(home.home, ".baton", "environment.sh"))).toBe(false);
    expect(existsSync(join(home.home, ".baton", "handoffs", "acme__api.json"))).toBe(false);
  });

  it("--no-wait prints the operation id and state and exits 0; op get then shows it", async () => {
    const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_nowait" });
    const env = home.env(sandbox);
    const started = await baton(["env", "activate", "acme/api", "--no-wait", "--json"], env);
    expect(started.exitCode).toBe(0);
    const op = OperationSchema.strict().parse(JSON.parse(started.stdout));
    expect(["pending", "running", "succeeded"]).toContain(op.state);

    const human = await baton(["env", "activate", "acme/web", "--no-wait"], env);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toMatch(/^Operation op_\S+ (pending|running|succeeded): activation of acme\/web\./);
    expect(human.stdout).toMatch(/baton op get op_/);

    const shown = await pollUntil(
      async () => {
        const got = await baton(["op", "get", op.id, "--json"], env);
        expect(got.exitCode).toBe(0);
        return OperationSchema.strict().parse(JSON.parse(got.stdout));
      },
      (current) => current.state === "succeeded",
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(shown.state).toBe("succeeded");
    expect(shown.id).toBe(op.id);
    const text = await baton(["op", "get", op.id], env);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain(`Operation ${op.id}: env.activate acme/api`);
    expect(text.stdout).toContain("State: succeeded");
    // --no-wait writes nothing locally.
    expect(await readTree(join(home.home, ".baton", "handoffs"))).toBe("");
  });

  it("rollout disabled: the typed refusal exits 6", async () => {
    const sandbox = await createSandbox(serve, { workspaceId: "ws_norollout", engagementId: "eng_old" });
    // A checkout that exists, so the refusal under test is the service's rather than the missing checkout's.
    const checkout = ["--checkout", home.checkout("acme/api")];
    const run = await baton(["env", "activate", "old/app", ...checkout], home.env(sandbox));
    expect(run.exitCode).toBe(6);
    expect(run.stderr).toContain("repository environments are not enabled for this workspace");
    const json = await baton(["env", "activate", "old/app", "--json", ...checkout], home.env(sandbox));
    expect(json.exitCode).toBe(6);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "rollout_disabled" } });
  });

  it("a repository the workspace does not have: exit 1 saying so", async () => {
    const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_missing" });
    const checkout = ["--checkout", home.checkout("acme/api")]; // exists: the service's refusal is under test
    const run = await baton(["env", "activate", "acme/nope", ...checkout], home.env(sandbox));
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("not_found");
  });

  it("an unknown operation id: op get exits 1 with not_found", async () => {
    const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_opget" });
    const run = await baton(["op", "get", "op_doesnotexist"], home.env(sandbox));
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("404 not_found");
  });

  it.each([
    [["env", "activate", "not-a-slug"], {}, "owner/name"],
    [["env", "activate", "acme/api", "--timeout", "soon"], {}, "--timeout"],
    [["env", "activate", "acme/api", "--bogus"], {}, "unknown option"],
    [["env", "activate", "acme/api"], { BATON_TURN_TOKEN: "" }, "BATON_TURN_TOKEN is not set"],
    [["env", "activate", "acme/api"], { BATON_SANDBOX_LEASE: "" }, "BATON_SANDBOX_LEASE is not set"],
    [["env", "activate", "acme/api"], { BATON_OPS_URL: "" }, "BATON_OPS_URL is not set"],
    [["env", "activate", "acme/api"], { BATON_TURN_TOKEN: "wrong-token" }, "invalid_token"],
    [["op", "get", "op_x"], { BATON_OPS_URL: "http://127.0.0.1:1" }, "BATON_OPS_URL"],
  ] as const)("%j with %j exits 1 saying %s", async (args, override, message) => {
    const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_bad" });
    const run = await baton([...args], { ...home.env(sandbox), ...override });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(message);
    // The turn token and lease are never echoed.
    expect(run.stderr).not.toContain(sandbox.env.BATON_TURN_TOKEN);
    expect(run.stderr).not.toContain(sandbox.env.BATON_SANDBOX_LEASE);
  });
});
