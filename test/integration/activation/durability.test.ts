// Durability of activation end to end: expiry, kill -9 and restart, concurrency, and retries after a lost
// answer, each against a real `baton serve` child process with a real SQLite file, driven by the built CLI.
// BATON_SERVE_TEST_ACTIVATION_DELAY_MS (the service's test-only pause while an operation is `running`) is what
// makes "mid-operation" reachable from outside.
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { ActivationJsonSchema } from "../../../src/activation/index.js";
import { OperationSchema } from "../../../src/transport/wire.js";
import { expectNoCanary, readTree } from "../../helpers/canary.js";
import { BATON_BIN, type BatonRun, runBaton } from "../../helpers/cli.js";
import { type DropProxy, startDropProxy } from "../../helpers/drop-proxy.js";
import { pollUntil } from "../../helpers/poll.js";
import {
  ACTIVATION_CANARIES,
  ACTIVATION_SEED,
  createSandbox,
  killLeftoverServes,
  LOUD,
  makeSandboxHome,
  type SandboxHome,
  type ServeHandle,
  startServe,
} from "../../helpers/serve.js";

let serve: ServeHandle | undefined;
let proxy: DropProxy | undefined;
let home: SandboxHome | undefined;
const runs: BatonRun[] = [];

async function baton(args: string[], env: Record<string, string>): Promise<BatonRun> {
  const run = await runBaton(args, { env });
  runs.push(run);
  return run;
}

afterEach(async () => {
  expectNoCanary(
    [
      ...runs.flatMap((r) => [r.stdout, r.stderr]),
      serve?.output() ?? "",
      home ? await readTree(home.home) : "",
    ],
    ACTIVATION_CANARIES,
  );
  runs.length = 0;
  await proxy?.close();
  await serve?.stop();
  await home?.remove();
  await killLeftoverServes();
  serve = proxy = home = undefined;
});

async function opGet(id: string, env: Record<string, string>) {
  const run = await baton(["op", "get", id, "--json"], env);
  return { run, op: OperationSchema.strict().parse(JSON.parse(run.stdout)) };
}

const terminal = (op: { state: string }) => op.state === "succeeded" || op.state === "failed";

/** The operation keeps going without its client: poll `op get` until it settles or a minute passes. */
function opGetUntilTerminal(id: string, env: Record<string, string>) {
  return pollUntil(async () => (await opGet(id, env)).op, terminal, { timeoutMs: 60_000, intervalMs: 250 });
}

// Process-heavy: generous per-test limits, as a loaded machine can take a second per CLI start.
const SLOW = 150_000;

describe("activation durability", () => {
  it(
    "an expired sandbox lease fails the operation terminally: the waiting CLI exits 6, and op get from a revived sandbox shows why",
    async () => {
      // The lease (10 s) ends while the operation is running (15 s): the CLI's long-poll, made while the lease was
      // valid, reports the terminal failure.
      serve = await startServe({
        seed: ACTIVATION_SEED,
        env: { ...LOUD, BATON_SERVE_TEST_ACTIVATION_DELAY_MS: "15000" },
      });
      home = await makeSandboxHome({ "acme/api": "acme-api" });
      const sandbox = await createSandbox(serve, {
        workspaceId: "ws_acme",
        engagementId: "eng_lease",
        leaseTtlSeconds: 10,
      });
      const run = await baton(["env", "activate", "acme/api", "--json"], home.env(sandbox));
      expect(run.exitCode, run.stderr).toBe(6);
      expect(run.stderr).toContain("lease");
      const failed = ActivationJsonSchema.parse(JSON.parse(run.stdout));
      expect(failed.state).toBe("failed");
      expect(failed.error?.code).toBe("lease_expired");

      const revived = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_lease" });
      const { run: shown, op } = await opGet(failed.id, home.env(revived));
      expect(shown.exitCode).toBe(6);
      expect(op.state).toBe("failed");
      expect(op.error?.code).toBe("lease_expired");
      // Nothing was written for a failed activation.
      expect(await readTree(`${home.home}/.baton`)).toBe("");
    },
    SLOW,
  );

  it(
    "kill -9 of the service mid-operation, then a restart: the operation reaches a terminal state and a waiting CLI rides out the outage",
    async () => {
      // A short lease: on PostgreSQL the operation the killed instance held is taken over once its lease runs out
      // (on SQLite at once); the default 30 s only made the wait longer.
      serve = await startServe({
        seed: ACTIVATION_SEED,
        env: { ...LOUD, BATON_SERVE_TEST_ACTIVATION_DELAY_MS: "8000", BATON_SERVE_TEST_LEASE_MS: "4000" },
      });
      proxy = await startDropProxy(Number(new URL(serve.opsUrl).port)); // the sandbox listener
      home = await makeSandboxHome({ "acme/api": "acme-api", "acme/web": "acme-web" });
      const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_kill" });
      const env = { ...home.env(sandbox), BATON_OPS_URL: proxy.url };

      const started = await baton(["env", "activate", "acme/api", "--no-wait", "--json"], env);
      const apiOp = OperationSchema.strict().parse(JSON.parse(started.stdout));
      const running = await pollUntil(
        async () => (await opGet(apiOp.id, env)).op,
        (op) => op.state !== "pending",
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      expect(running.state).toBe("running");

      // A second activation waits behind the first (serial per engagement) through the crash.
      const answersBefore = proxy.postAnswers();
      const waiting = runBaton(["env", "activate", "acme/web"], { env });
      await pollUntil(
        () => proxy!.postAnswers(),
        (answers) => answers > answersBefore,
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      expect(proxy.postAnswers()).toBe(answersBefore + 1);

      await serve.kill9();
      await serve.restart({ BATON_SERVE_TEST_ACTIVATION_DELAY_MS: "0" });

      const web = await waiting;
      runs.push(web);
      expect(web.exitCode).toBe(0);
      expect(web.stdout).toContain("Activated acme/web");

      const final = await opGetUntilTerminal(apiOp.id, env);
      expect(["succeeded", "failed"]).toContain(final.state);
      expect(final.state).toBe("succeeded");
    },
    SLOW,
  );

  it(
    "--timeout passing while the operation runs exits 3 and says how to look again; the operation keeps going",
    async () => {
      serve = await startServe({
        seed: ACTIVATION_SEED,
        env: { ...LOUD, BATON_SERVE_TEST_ACTIVATION_DELAY_MS: "6000" },
      });
      home = await makeSandboxHome({ "acme/api": "acme-api" });
      const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_timeout" });
      const env = home.env(sandbox);
      const run = await baton(["env", "activate", "acme/api", "--timeout", "0.03"], env);
      expect(run.exitCode).toBe(3);
      const id = /baton op get (op_\w+)/.exec(run.stderr)?.[1];
      expect(id).toBeDefined();
      expect((await opGetUntilTerminal(id!, env)).state).toBe("succeeded");
    },
    SLOW,
  );

  it(
    "Ctrl-C while waiting stops waiting with exit 3, names the operation, and the operation keeps going",
    async () => {
      serve = await startServe({
        seed: ACTIVATION_SEED,
        env: { ...LOUD, BATON_SERVE_TEST_ACTIVATION_DELAY_MS: "5000" },
      });
      proxy = await startDropProxy(Number(new URL(serve.opsUrl).port)); // the sandbox listener
      home = await makeSandboxHome({ "acme/api": "acme-api" });
      const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_sigint" });
      const env = { ...home.env(sandbox), BATON_OPS_URL: proxy.url };
      const waiting = execa(process.execPath, [BATON_BIN, "env", "activate", "acme/api"], {
        env: { BATON_LOG_LEVEL: "", ...env },
        reject: false,
      });
      // A GET means the CLI has started the operation and is in its wait loop.
      await pollUntil(
        () => proxy!.gets(),
        (gets) => gets > 0,
        { timeoutMs: 30_000, intervalMs: 50 },
      );
      expect(proxy.gets()).toBeGreaterThan(0);
      waiting.kill("SIGINT");
      const done = await waiting;
      const run = { exitCode: done.exitCode ?? -1, stdout: String(done.stdout), stderr: String(done.stderr) };
      runs.push(run);
      expect(run.exitCode).toBe(3);
      expect(run.stderr).toContain("stopped waiting");
      const id = /baton op get (op_\w+)/.exec(run.stderr)?.[1];
      expect(id).toBeDefined();
      expect((await opGetUntilTerminal(id!, env)).state).toBe("succeeded");
    },
    SLOW,
  );

  it(
    "ten concurrent activations in one engagement run one at a time and leave a consistent ledger",
    async () => {
      serve = await startServe({ seed: ACTIVATION_SEED, env: LOUD });
      home = await makeSandboxHome({ "acme/api": "acme-api", "acme/web": "acme-web" });
      const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_ten" });
      const env = home.env(sandbox);
      const repos = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? "acme/api" : "acme/web"));
      const results = await Promise.all(repos.map((repo) => baton(["env", "activate", repo, "--json"], env)));
      for (const result of results) expect(result.exitCode, result.stderr).toBe(0);
      const ops = results.map((r) => ActivationJsonSchema.parse(JSON.parse(r.stdout)));

      // Serial: every activation committed its own overlay revision, 1 to 10 without gaps.
      expect(ops.map((op) => op.result!.overlayRevision).sort((a, b) => a - b)).toEqual([
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
      ]);
      // Consistent ledger: each (repository, variable) has one assigned name across every result, and no result
      // hands one assigned name to two variables.
      const assigned = new Map<string, string>();
      for (const op of ops) {
        const names = op.result!.variables.map((v) => v.assigned);
        expect(new Set(names).size).toBe(names.length);
        for (const v of op.result!.variables) {
          const key = `${v.repository} ${v.name}`;
          expect(assigned.get(key) ?? v.assigned).toBe(v.assigned);
          assigned.set(key, v.assigned);
        }
      }
      // Whichever repository committed first owns the unqualified DATABASE_URL; the other is qualified.
      const owners = [assigned.get("acme/api DATABASE_URL"), assigned.get("acme/web DATABASE_URL")].sort();
      expect(owners).toEqual(
        ["DATABASE_URL", expect.stringMatching(/^REPO_(API|WEB)__DATABASE_URL$/)].sort(),
      );
    },
    SLOW,
  );

  it(
    "a POST whose answer is lost is retried with the same key and creates one operation",
    async () => {
      serve = await startServe({ seed: ACTIVATION_SEED, env: LOUD });
      proxy = await startDropProxy(Number(new URL(serve.opsUrl).port)); // the sandbox listener
      home = await makeSandboxHome({ "acme/api": "acme-api", "acme/web": "acme-web" });
      const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng_drop" });
      const env = { ...home.env(sandbox), BATON_OPS_URL: proxy.url };

      proxy.dropNextPostAnswers(1);
      const run = await baton(["env", "activate", "acme/api", "--json"], env);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(proxy.posts()).toBe(2);
      const op = ActivationJsonSchema.parse(JSON.parse(run.stdout));
      // Had the retry started a second operation, two activations would have committed revisions 1 and 2.
      expect(op.result!.overlayRevision).toBe(1);
      const next = await baton(["env", "activate", "acme/web", "--json"], env);
      expect(ActivationJsonSchema.parse(JSON.parse(next.stdout)).result!.overlayRevision).toBe(2);
    },
    SLOW,
  );
});
