// A real `baton serve` child process on 127.0.0.1 (port 0) on the suite's engine (BATON_TEST_STORE: a real SQLite
// file, or a PostgreSQL schema of its own; serve-place.ts), plus sandboxes made through its admin API and
// temporary HOMEs holding fixture checkouts. Shared by every end-to-end suite.
import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SqlValue, Store } from "../../src/server/store/store.js";
import {
  ADMIN_PATHS,
  CreateSandboxResponseSchema,
  CreateTurnResponseSchema,
  HEADERS,
} from "../../src/transport/wire.js";
import { BATON_BIN, PROJECT_ROOT } from "./cli.js";
import { dropPlace, makePlace, queryPlace } from "./serve-place.js";
import { TEST_ENGINE, type TestEngine } from "./test-store.js";

export const FIXTURES = join(PROJECT_ROOT, "fixtures");
export const ACTIVATION_SEED = join(FIXTURES, "seeds", "activation.json");
/** The secret values planted in ACTIVATION_SEED: none may appear in any output, log or file. */
export const ACTIVATION_CANARIES = [
  "canary-api-payments-5d1f0b7e-never-print",
  "canary-web-payments-9a2c4e6b-never-print",
];
/** The service logs at debug level, so a canary check covers its logs too. */
export const LOUD = { BATON_LOG_LEVEL: "debug" };

/** 64 hex characters, as `baton serve` asks of an admin token (32 random bytes' worth); fixed across runs. */
export const TEST_ADMIN_TOKEN = createHash("sha256").update("baton test admin token").digest("hex");

export interface ServeHandle {
  /** The public listener (`/v1`, `/healthz`, `/openapi.json`, member routes). */
  url: string;
  port: number;
  /** The sandbox listener (`/ops/v1` only): BATON_OPS_URL of sandboxes made without a driver. */
  opsUrl: string;
  /** The admin listener (admin API, `baton proxy`'s internal routes): what `baton admin --url` takes. */
  adminUrl: string;
  adminToken: string;
  /** The engine the service runs on. */
  engine: TestEngine;
  /** The SQLite file; on PostgreSQL the path its key file (`<dbPath>.key`) and work folder sit beside. */
  dbPath: string;
  /** On PostgreSQL: the `--database-url` (a second instance on the same data takes it) and its schema. */
  databaseUrl: string | undefined;
  schema: string | undefined;
  /** Runs one query on the service's data, whichever engine holds it (for checks about behaviour). */
  query<Row = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<Row[]>;
  /** A store on the service's data (not migrated again); close it after use. */
  openStore(): Promise<Store>;
  /** Every stored byte as text (the SQLite file and its WAL, or every row of the schema), for canary checks. */
  dump(): Promise<string>;
  /** The current child process (a new one after restart). */
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal name) when the current child ends. */
  readonly exited: Promise<number | string>;
  /** What the current child printed on stdout / stderr. */
  stdout(): string;
  stderr(): string;
  /** Everything every child printed so far (stdout and stderr), for canary checks. */
  output(): string;
  /** POST to the admin API (on the admin listener) with the admin token. */
  admin(path: string, body: unknown): Promise<Response>;
  /** SIGTERM and wait for the exit; returns the exit code (or signal name). */
  stop(): Promise<number | string>;
  /** kill -9, as a crash would. */
  kill9(): Promise<number | string>;
  /** Starts the service again on the same ports (all three listeners) and database (after stop or kill9); with `seed`, `--seed` too. */
  restart(env?: Record<string, string>, options?: { seed?: string }): Promise<void>;
}
/** The name the server suites use for the same handle. */
export type ServeProcess = ServeHandle;

export interface StartServeOptions {
  seed?: string;
  /** Extra environment for the service, e.g. BATON_SERVE_TEST_ACTIVATION_DELAY_MS or BATON_LOG_LEVEL. */
  env?: Record<string, string>;
  /** The SQLite file; by default serve.sqlite in `dir`. On PostgreSQL a nominal path: the same path is the same
   * schema (made on first use, dropped after the test file), its key file `<db>.key`. */
  db?: string;
  /** Folder for the SQLite file; a fresh temp folder by default (removed by stop(), with its schema on PG). */
  dir?: string;
  /** The engine; BATON_TEST_STORE's by default, postgres when `databaseUrl` is given. */
  engine?: TestEngine;
  /** PostgreSQL: an existing schema's URL (serve-place.ts schemaUrl), e.g. another instance's; not dropped. */
  databaseUrl?: string;
  /** `--secret-key-file`; on PostgreSQL `<db>.key` by default (the same file on restart). */
  secretKeyFile?: string;
  /** `--work-dir`; on PostgreSQL `work` beside `db` by default. */
  workDir?: string;
  /** Extra `baton serve` flags, e.g. ["--smtp-url", url] (kept on restart). */
  args?: string[];
  /** `--json` (the default) or the human listening line. */
  json?: boolean;
}

const running = new Set<ChildProcess>();

export async function startServe(options: StartServeOptions = {}): Promise<ServeHandle> {
  const ownDir = options.db === undefined && options.dir === undefined;
  const dir = options.dir ?? (ownDir ? await mkdtemp(join(tmpdir(), "baton-serve-")) : "");
  const dbPath = options.db ?? join(dir, "serve.sqlite");
  const engine = options.engine ?? (options.databaseUrl === undefined ? TEST_ENGINE : "postgres");
  const place = await makePlace(engine, dbPath, options);
  const adminToken = TEST_ADMIN_TOKEN;
  let log = "";
  let out = "";
  let err = "";
  let child!: ChildProcess;
  let exited!: Promise<number | string>;
  let port = 0;
  let opsPort = 0;
  let adminPort = 0;

  const launch = async (env: Record<string, string>, seed: string | undefined): Promise<Listening> => {
    const args = [BATON_BIN, "serve", "--host", "127.0.0.1", "--port", String(port), ...place.args];
    args.push("--ops-listen", `127.0.0.1:${opsPort}`, "--admin-listen", `127.0.0.1:${adminPort}`);
    if (options.json !== false) args.push("--json");
    if (seed) args.push("--seed", seed);
    args.push(...(options.args ?? []));
    // A service with a sandbox driver keeps a pool of ready boxes by default (2): two more boxes made in the
    // background per test service, which only the tests of the pool need. Those tests ask for one by name.
    const given = options.args ?? [];
    if (given.includes("--sandbox-driver") && !given.some((arg) => arg.startsWith("--sandbox-pool-size")))
      args.push("--sandbox-pool-size", "0");
    out = "";
    err = "";
    const current = spawn(process.execPath, args, {
      env: { ...process.env, BATON_LOG_LEVEL: "", ...env, BATON_ADMIN_TOKEN: adminToken },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child = current;
    running.add(current);
    exited = new Promise((resolve) => {
      current.once("exit", (code, signal) => {
        running.delete(current);
        resolve(code ?? signal ?? -1);
      });
    });
    current.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      log += chunk.toString("utf8");
    });
    current.stderr!.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
      log += chunk.toString("utf8");
    });
    return await new Promise<Listening>((resolve, reject) => {
      // Just under the hook timeout (60 s), so a slow start fails with this message and what the service printed.
      const timer = setTimeout(() => reject(new Error(`baton serve did not start in time:\n${err}`)), 55_000);
      const check = () => {
        const lines = out.split("\n");
        // --json: one line; the human form: one line per listener.
        if (lines.length < 2 || (!lines[0]!.startsWith("{") && lines.length < 4)) return;
        clearTimeout(timer);
        current.stdout!.off("data", check);
        resolve(lines[0]!.startsWith("{") ? (JSON.parse(lines[0]!) as Listening) : parseHumanLines(lines));
      };
      current.stdout!.on("data", check);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`baton serve exited (${code}) before listening:\n${err}`));
      });
    });
  };

  const { url, opsUrl, adminUrl } = await launch(options.env ?? {}, options.seed);
  if (!adminUrl) throw new Error("baton serve opened no admin listener although BATON_ADMIN_TOKEN is set");
  port = Number(new URL(url).port);
  opsPort = Number(new URL(opsUrl).port);
  adminPort = Number(new URL(adminUrl).port);
  const handle: ServeHandle = {
    url,
    port,
    opsUrl,
    adminUrl,
    adminToken,
    engine,
    dbPath,
    databaseUrl: place.databaseUrl,
    schema: place.schema,
    query<Row>(sql: string, params?: readonly SqlValue[]) {
      return queryPlace<Row>(place, sql, params);
    },
    openStore: () => place.openStore(),
    dump: () => place.dump(),
    get child() {
      return child;
    },
    get exited() {
      return exited;
    },
    stdout: () => out,
    stderr: () => err,
    output: () => log,
    admin: (path, body) =>
      fetch(new URL(path, adminUrl), {
        method: "POST",
        headers: { "content-type": "application/json", [HEADERS.adminToken]: adminToken },
        body: JSON.stringify(body),
      }),
    async stop() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      if (ownDir) {
        await rm(dir, { recursive: true, force: true });
        await dropPlace(dbPath);
      }
      return code;
    },
    kill9() {
      child.kill("SIGKILL");
      return exited;
    },
    async restart(env = {}, again = {}) {
      await launch({ ...options.env, ...env }, again.seed);
    },
  };
  return handle;
}

interface Listening {
  url: string;
  opsUrl: string;
  adminUrl: string | null;
}

/** The human form's three lines: `... listening on <url>`, `... on <opsUrl>`, `... admin on <adminUrl>`. */
function parseHumanLines(lines: readonly string[]): Listening {
  const after = (line: string | undefined) => /\bon (http:\/\/\S+)/.exec(line ?? "")?.[1] ?? null;
  return { url: after(lines[0])!, opsUrl: after(lines[1])!, adminUrl: after(lines[2]) };
}

/** Kills any service a failed test left behind. Call from afterEach. */
/** The listener that serves `path`: the admin API and the proxy's internal routes on the admin listener, the
 * operations transport on the sandbox listener, everything else on the public one. */
export function listenerUrlFor(
  serve: Pick<ServeHandle, "url" | "opsUrl" | "adminUrl">,
  path: string,
): string {
  if (path.startsWith("/admin/") || path.startsWith("/internal/")) return `${serve.adminUrl}${path}`;
  if (path.startsWith("/ops/") || path.startsWith("/codehost/")) return `${serve.opsUrl}${path}`;
  return `${serve.url}${path}`;
}

export async function killLeftoverServes(): Promise<void> {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
}

async function admin(serve: ServeHandle, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${serve.adminUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", [HEADERS.adminToken]: serve.adminToken },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`admin ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

export interface Sandbox {
  sandboxId: string;
  engagementId: string;
  /** BATON_OPS_URL, BATON_TURN_TOKEN, BATON_SANDBOX_LEASE. */
  env: Record<string, string>;
}

export async function createSandbox(
  serve: ServeHandle,
  input: { workspaceId: string; engagementId: string; leaseTtlSeconds?: number; turnTtlSeconds?: number },
): Promise<Sandbox> {
  const answer = CreateSandboxResponseSchema.parse(await admin(serve, ADMIN_PATHS.sandboxes, input));
  return { sandboxId: answer.sandboxId, engagementId: answer.engagementId, env: { ...answer.env } };
}

/** A follow-up turn: a new turn token for the same engagement. */
export async function createTurn(
  serve: ServeHandle,
  engagementId: string,
  ttlSeconds?: number,
): Promise<string> {
  const body = ttlSeconds === undefined ? { engagementId } : { engagementId, ttlSeconds };
  return CreateTurnResponseSchema.parse(await admin(serve, ADMIN_PATHS.turns, body)).turnToken;
}

export interface SandboxHome {
  home: string;
  /** The environment a command in this sandbox runs with (HOME plus the sandbox's transport variables). */
  env(sandbox: Sandbox): Record<string, string>;
  checkout(repository: string): string;
  remove(): Promise<void>;
}

/** A temporary HOME with fixture checkouts: `{ "acme/api": "acme-api" }` copies fixtures/repos/acme-api. */
export async function makeSandboxHome(checkouts: Record<string, string> = {}): Promise<SandboxHome> {
  const home = await mkdtemp(join(tmpdir(), "baton-home-"));
  const checkout = (repository: string) => join(home, "checkouts", ...repository.split("/"));
  for (const [repository, fixture] of Object.entries(checkouts)) {
    await mkdir(checkout(repository), { recursive: true });
    await cp(join(FIXTURES, "repos", fixture), checkout(repository), { recursive: true });
  }
  return {
    home,
    env: (sandbox) => ({ HOME: home, BATON_CHECKOUT_ROOT: join(home, "checkouts"), ...sandbox.env }),
    checkout,
    remove: () => rm(home, { recursive: true, force: true }),
  };
}
