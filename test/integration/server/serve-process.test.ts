// `baton serve` as an operator runs it: a real child process on 127.0.0.1 port 0 with a real SQLite file.

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ADMIN_PATHS, HEADERS, type Operation, PATHS } from "../../../src/transport/wire.js";
import { runBaton } from "../../helpers/cli.js";
import { pollUntil } from "../../helpers/poll.js";
import { type ServeProcess, startServe, TEST_ADMIN_TOKEN } from "../../helpers/serve.js";
import { CANARIES, SEED_PATH } from "./harness.js";

let dir: string;
const running: ServeProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "baton-serve-"));
});
afterEach(async () => {
  for (const serve of running.splice(0))
    if (serve.child.exitCode === null && serve.child.signalCode === null) await serve.kill9();
  await rm(dir, { recursive: true, force: true });
});

async function serve(
  options: { env?: Record<string, string>; seed?: boolean; json?: boolean } = {},
): Promise<ServeProcess> {
  const started = await startServe({
    db: join(dir, "serve.sqlite"),
    ...(options.seed === false ? {} : { seed: SEED_PATH }),
    // On PostgreSQL a restarted service is a new instance, which takes over a killed one's operation only once its
    // lease has run out (SQLite's lock file tells it at once that the old process is dead): a short lease keeps
    // the kill -9 cases quick on both engines.
    env: { BATON_SERVE_TEST_LEASE_MS: "1500", ...options.env },
    ...(options.json === undefined ? {} : { json: options.json }),
  });
  running.push(started);
  return started;
}

interface Creds {
  lease: string;
  turnToken: string;
}
const headers = (creds: Creds, key?: string) => ({
  [HEADERS.authorization]: `Bearer ${creds.turnToken}`,
  [HEADERS.sandboxLease]: creds.lease,
  "content-type": "application/json",
  ...(key ? { [HEADERS.idempotencyKey]: key } : {}),
});
async function sandbox(s: ServeProcess, engagementId: string): Promise<Creds> {
  const response = await s.admin(ADMIN_PATHS.sandboxes, { workspaceId: "ws_acme", engagementId });
  expect(response.status).toBe(201);
  return (await response.json()) as Creds;
}
async function start(s: ServeProcess, creds: Creds, repository: string, key: string): Promise<Response> {
  return fetch(new URL(PATHS.operations, s.opsUrl), {
    method: "POST",
    headers: headers(creds, key),
    body: JSON.stringify({ kind: "env.activate", repository }),
  });
}
async function get(s: ServeProcess, creds: Creds, id: string, waitMs = 0): Promise<Operation> {
  const response = await fetch(new URL(`${PATHS.operation(id)}?waitMs=${waitMs}`, s.opsUrl), {
    headers: headers(creds),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Operation;
}
async function waitForState(s: ServeProcess, creds: Creds, id: string, states: string[]): Promise<Operation> {
  // The first read does not wait, so a state the operation is already in is not skipped; then short long-polls:
  // a long one that starts just after a change waits for the next change, and would skip a state the operation
  // holds for a moment (`running` between two reads).
  let waitMs = 0;
  const op = await pollUntil(
    async () => {
      const current = await get(s, creds, id, waitMs);
      waitMs = 200;
      return current;
    },
    (current) => states.includes(current.state),
    { timeoutMs: 120_000, intervalMs: 0 },
  );
  if (!states.includes(op.state)) throw new Error(`operation ${id} never reached ${states.join("/")}`);
  return op;
}

describe("baton serve process", () => {
  it("prints one line per listener, and SIGTERM stops it with exit 0", async () => {
    const human = await serve({ json: false });
    expect(human.stdout()).toMatch(
      /^baton serve: listening on http:\/\/127\.0\.0\.1:\d+\nbaton serve: sandboxes \(\/ops\/v1\) on http:\/\/127\.0\.0\.1:\d+\nbaton serve: admin on http:\/\/127\.0\.0\.1:\d+\n$/,
    );
    expect(await (await fetch(new URL("/healthz", human.url))).json()).toEqual({ ok: true });
    expect(await human.stop()).toBe(0);
    expect(human.stdout().split("\n").filter(Boolean)).toHaveLength(3);
    // node:sqlite's ExperimentalWarning is silenced; without BATON_LOG_LEVEL stderr holds only the info-level
    // JSON lines of the audit log (issue 21 item 8), here just the start and the stop.
    const logged = human
      .stderr()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(logged.map((line) => line.msg)).toEqual(["listening", "stopping"]);
    expect(logged.every((line) => line.level === 30)).toBe(true);

    const json = await serve();
    const address = expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(JSON.parse(json.stdout())).toEqual({ url: address, opsUrl: address, adminUrl: address });
    expect(await json.stop()).toBe(0);
  });

  it("SIGTERM lets the operation in hand finish before exiting", async () => {
    const s = await serve({ env: { BATON_SERVE_TEST_ACTIVATION_DELAY_MS: "1500" } });
    const creds = await sandbox(s, "eng-1");
    const op = (await (await start(s, creds, "acme/api", "k1")).json()) as Operation;
    await waitForState(s, creds, op.id, ["running"]);
    expect(await s.stop()).toBe(0);
    const again = await serve();
    expect((await get(again, creds, op.id)).state).toBe("succeeded");
  });

  it("refuses an invalid seed file with exit 1, naming the field but never the value", async () => {
    const seed = join(dir, "bad-seed.json");
    await writeFile(
      seed,
      JSON.stringify({
        workspaces: [
          {
            id: "w",
            name: "W",
            repositories: [
              {
                repository: "a/b",
                secrets: [{ name: "1BAD", value: CANARIES[0], allowedHosts: ["x.test"] }],
              },
            ],
          },
        ],
      }),
    );
    const run = await runBaton(["serve", "--db", join(dir, "serve.sqlite"), "--seed", seed]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("workspaces[0].repositories[0].secrets[0].name");
    expect(run.stderr + run.stdout).not.toContain(CANARIES[0]);
  });

  it("a busy port or an unopenable --db is exit 1 with a message saying what to fix", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = String((blocker.address() as { port: number }).port);
    try {
      const busy = await runBaton(["serve", "--db", join(dir, "serve.sqlite"), "--port", port]);
      expect(busy.exitCode).toBe(1);
      expect(busy.stderr).toContain("pick another --host or --port");
    } finally {
      blocker.close();
    }
    await mkdir(join(dir, "a-folder.sqlite"));
    const unopenable = await runBaton(["serve", "--db", join(dir, "a-folder.sqlite")]);
    expect(unopenable.exitCode).toBe(1);
    expect(unopenable.stderr).toContain("check --db");
    // Node's recursive mkdir used to spin forever here (procfs answers ENOENT); now it fails at once.
    const underProc = await runBaton(["serve", "--db", "/proc/baton-no-such-folder/serve.sqlite"], {
      timeout: 10_000,
      killSignal: "SIGKILL", // a spinning process ignores SIGTERM
    });
    expect(underProc.exitCode).toBe(1);
    expect(underProc.stderr).toContain(
      "cannot open the SQLite store /proc/baton-no-such-folder/serve.sqlite",
    );
    expect(underProc.stderr).toContain("check --db");
  });

  // The activation itself takes milliseconds; BATON_SERVE_TEST_ACTIVATION_DELAY_MS holds each operation in
  // `running` for a few seconds so the kill lands mid-operation instead of racing it.
  it("kill -9 mid-operation, then restart: the operation is resumed and succeeds", async () => {
    const slow = await serve({ env: { BATON_SERVE_TEST_ACTIVATION_DELAY_MS: "5000" } });
    const creds = await sandbox(slow, "eng-1");
    const op = (await (await start(slow, creds, "acme/api", "k1")).json()) as Operation;
    await waitForState(slow, creds, op.id, ["running"]);
    expect(await slow.kill9()).toBe("SIGKILL");

    const restarted = await serve();
    const done = await waitForState(restarted, creds, op.id, ["succeeded", "failed"]);
    expect(done.state).toBe("succeeded");
    expect(done.result?.overlayRevision).toBe(1);
  });

  it("an operation interrupted by kill -9 three times fails terminally with interrupted; none stays running", async () => {
    const env = { BATON_SERVE_TEST_ACTIVATION_DELAY_MS: "5000" };
    let s = await serve({ env });
    const creds = await sandbox(s, "eng-1");
    const op = (await (await start(s, creds, "acme/api", "k1")).json()) as Operation;
    for (let attempt = 1; attempt <= 3; attempt++) {
      // Running in this attempt, not still `running` from the killed process: on PostgreSQL the new instance takes
      // the operation over only once the old one's lease has run out (SQLite's restart does at once).
      const row = await pollUntil(
        async () =>
          (await s.query<{ attempts: number }>("SELECT attempts FROM operations WHERE id = ?", [op.id]))[0],
        (current) => Number(current?.attempts) >= attempt,
        { timeoutMs: 30_000 },
      );
      expect(Number(row?.attempts)).toBe(attempt);
      await waitForState(s, creds, op.id, ["running"]);
      await s.kill9();
      s = await serve({ env });
    }
    const failed = await waitForState(s, creds, op.id, ["succeeded", "failed"]);
    expect(failed.state).toBe("failed");
    expect(failed.error).toMatchObject({ code: "interrupted" });
  });

  it("ten concurrent activations over HTTP in one engagement run one at a time and agree on the names", async () => {
    const s = await serve({ env: { BATON_SERVE_TEST_ACTIVATION_DELAY_MS: "30" } });
    const creds = await sandbox(s, "eng-1");
    const repos = ["acme/api", "acme/web"];
    const ops = await Promise.all(
      Array.from(
        { length: 10 },
        async (_, i) => (await (await start(s, creds, repos[i % 2]!, `key-${i}`)).json()) as Operation,
      ),
    );
    const done = await Promise.all(ops.map((op) => waitForState(s, creds, op.id, ["succeeded", "failed"])));
    expect(done.every((op) => op.state === "succeeded")).toBe(true);
    expect(done.map((op) => op.result!.overlayRevision).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
    // Every result's mapping for a repository is the same: the ledger never changed a name once given.
    const byName = new Map<string, string>();
    for (const op of done) {
      for (const v of op.result!.variables) {
        const key = `${v.repository} ${v.name}`;
        expect(byName.get(key) ?? v.assigned).toBe(v.assigned);
        byName.set(key, v.assigned);
      }
    }
    const assigned = [...byName.values()];
    expect(new Set(assigned).size).toBe(assigned.length);
    expect(assigned).toContain("API_BASE_URL");
    expect(assigned.some((a) => /^REPO_(API|WEB)__API_BASE_URL$/.test(a))).toBe(true);
  });

  it("an operation carries on after its client disconnects mid long-poll", async () => {
    const s = await serve({ env: { BATON_SERVE_TEST_ACTIVATION_DELAY_MS: "800" } });
    const creds = await sandbox(s, "eng-1");
    const op = (await (await start(s, creds, "acme/api", "k1")).json()) as Operation;
    // From `running`, the next change is the commit 800 ms later: the long-poll below is still waiting at 100 ms.
    await waitForState(s, creds, op.id, ["running"]);
    const controller = new AbortController();
    const abandoned = fetch(new URL(`${PATHS.operation(op.id)}?waitMs=20000`, s.opsUrl), {
      headers: headers(creds),
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 100);
    await expect(abandoned).rejects.toThrow();
    const done = await waitForState(s, creds, op.id, ["succeeded", "failed"]);
    expect(done.state).toBe("succeeded");
  });

  it("a POST whose connection dropped, retried with the same key, creates one operation", async () => {
    const s = await serve();
    const creds = await sandbox(s, "eng-1");
    const body = JSON.stringify({ kind: "env.activate", repository: "acme/api" });
    const { port } = new URL(s.opsUrl);
    // Send the whole request, then drop the connection before reading any answer.
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => {
        socket.write(
          `POST ${PATHS.operations} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
            `authorization: Bearer ${creds.turnToken}\r\n${HEADERS.sandboxLease}: ${creds.lease}\r\n` +
            `${HEADERS.idempotencyKey}: retry-key\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          () =>
            setTimeout(() => {
              socket.destroy();
              resolve();
            }, 200),
        );
      });
      socket.on("error", reject);
    });
    const retried = (await (await start(s, creds, "acme/api", "retry-key")).json()) as Operation;
    const other = (await (await start(s, creds, "acme/api", "another-key")).json()) as Operation;
    expect(other.id).not.toBe(retried.id);
    const done = await waitForState(s, creds, other.id, ["succeeded"]);
    // Had the dropped POST and its retry made two operations, this third one would be revision 3.
    expect(done.result?.overlayRevision).toBe(2);
  });

  it("baton admin sandbox prints the exports a sandbox needs, and baton admin turn a follow-up token", async () => {
    const s = await serve();
    const env = { BATON_ADMIN_TOKEN: TEST_ADMIN_TOKEN };
    const run = await runBaton(
      ["admin", "sandbox", "--url", s.adminUrl, "--workspace", "ws_acme", "--engagement", "eng-9"],
      { env },
    );
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(
      /^export BATON_OPS_URL='[^']+' BATON_TURN_TOKEN='btt_[^']+' BATON_SANDBOX_LEASE='btl_[^']+'\n$/,
    );
    const shell = await execa("bash", [
      "-c",
      `${run.stdout.trim()}; printf '%s\\n%s\\n%s' "$BATON_OPS_URL" "$BATON_TURN_TOKEN" "$BATON_SANDBOX_LEASE"`,
    ]);
    const [opsUrl, turnToken, lease] = shell.stdout.split("\n") as [string, string, string];
    // Without a driver a sandbox reaches the service at its sandbox listener.
    expect(opsUrl).toBe(s.opsUrl);
    const op = (await (await start(s, { turnToken, lease }, "acme/api", "k")).json()) as Operation;
    expect(op.state).toBe("succeeded");

    const turn = await runBaton(["admin", "turn", "--url", s.adminUrl, "--engagement", "eng-9", "--json"], {
      env,
    });
    expect(turn.exitCode).toBe(0);
    const { turnToken: next } = JSON.parse(turn.stdout) as { turnToken: string };
    expect((await get(s, { turnToken: next, lease }, op.id)).id).toBe(op.id);

    const refused = await runBaton(["admin", "turn", "--url", s.adminUrl, "--engagement", "eng-9"], {
      env: { BATON_ADMIN_TOKEN: "wrong" },
    });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain("401");
  });

  it("canary secret values appear in no response, log line or error, even at debug level", async () => {
    const s = await serve({ env: { BATON_LOG_LEVEL: "debug" } });
    const bodies: string[] = [];
    const keep = async (response: Response) => {
      bodies.push(await response.text());
    };
    const creds = await sandbox(s, "eng-1");
    for (const repo of ["acme/api", "acme/web"]) {
      const op = (await (await start(s, creds, repo, `k-${repo}`)).json()) as Operation;
      const done = await waitForState(s, creds, op.id, ["succeeded", "failed"]);
      bodies.push(JSON.stringify(done));
      await keep(await fetch(new URL(PATHS.operationOverlay(op.id), s.opsUrl), { headers: headers(creds) }));
    }
    // Errors, including a seed whose invalid field sits next to a canary value.
    await keep(await start(s, creds, "acme/web", "k-acme/api"));
    await keep(await start(s, creds, "nobody/else", "k-x"));
    await keep(
      await s.admin(ADMIN_PATHS.seed, {
        workspaces: [
          {
            id: "ws_acme",
            name: "Acme",
            repositories: [
              {
                repository: "acme/api",
                secrets: [{ name: "OK", value: CANARIES[0], allowedHosts: ["NOT A HOST"] }],
              },
            ],
          },
        ],
      }),
    );
    await keep(
      await fetch(new URL(PATHS.operations, s.opsUrl), {
        method: "POST",
        headers: headers(creds, "k-bad"),
        body: `{"repository": "${CANARIES[1]}"}`,
      }),
    );
    expect(await s.stop()).toBe(0);
    expect(s.stderr()).toContain('"level":20'); // debug lines were written, so the grep below means something
    for (const text of [...bodies, s.stderr(), s.stdout()])
      for (const canary of CANARIES) expect(text).not.toContain(canary);
  });
});
