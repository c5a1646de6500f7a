// A real `baton serve` child process on 127.0.0.1 (port 0) with a real SQLite file, plus sandboxes made through
// its admin API and temporary HOMEs holding fixture checkouts. Shared by every end-to-end suite.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import {
  ADMIN_PATHS,
  CreateSandboxResponseSchema,
  CreateTurnResponseSchema,
  HEADERS,
} from "../../src/transport/wire.js";
import { BATON_BIN, PROJECT_ROOT } from "./cli.js";

export const FIXTURES = join(PROJECT_ROOT, "fixtures");
export const ACTIVATION_SEED = join(FIXTURES, "seeds", "activation.json");

export interface ServeHandle {
  url: string;
  port: number;
  adminToken: string;
  dbPath: string;
  /** Everything the service printed so far, for canary checks. */
  output(): string;
  /** SIGTERM and wait for a clean exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** kill -9, as a crash would. */
  kill9(): Promise<void>;
  /** Starts the service again on the same port and database (after stop or kill9). */
  restart(env?: Record<string, string>): Promise<void>;
}

export interface StartServeOptions {
  seed?: string;
  /** Extra environment for the service, e.g. BATON_SERVE_TEST_ACTIVATION_DELAY_MS. */
  env?: Record<string, string>;
  /** Folder for the SQLite file; a fresh temp folder by default (removed by stop()). */
  dir?: string;
  /** Extra `baton serve` flags, e.g. ["--smtp-url", url] (kept on restart). */
  args?: string[];
}

const running = new Set<ChildProcess>();

export async function startServe(options: StartServeOptions = {}): Promise<ServeHandle> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), "baton-serve-")));
  const dbPath = join(dir, "serve.sqlite");
  const adminToken = `admin-${randomBytes(16).toString("hex")}`;
  let log = "";
  let child: ChildProcess;
  let port = 0;

  const launch = async (env: Record<string, string>, seed: string | undefined): Promise<string> => {
    const args = [
      BATON_BIN,
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      String(port),
      "--db",
      dbPath,
      "--json",
    ];
    if (seed) args.push("--seed", seed);
    args.push(...(options.args ?? []));
    child = spawn(process.execPath, args, {
      env: { ...process.env, BATON_LOG_LEVEL: "info", ...env, BATON_ADMIN_TOKEN: adminToken },
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.add(child);
    child.once("exit", () => running.delete(child));
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString("utf8");
    });
    const lines = createInterface({ input: child.stdout! });
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`baton serve did not start in time:\n${log}`)), 20_000);
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`baton serve exited early (${code}):\n${log}`));
      });
      lines.once("line", (line) => {
        clearTimeout(timer);
        log += `${line}\n`;
        lines.on("line", (more) => {
          log += `${more}\n`;
        });
        resolve((JSON.parse(line) as { url: string }).url);
      });
    });
  };

  const waitExit = (target: ChildProcess) =>
    new Promise<number | null>((resolve) => {
      if (target.exitCode !== null || target.signalCode !== null) return resolve(target.exitCode);
      target.once("exit", (code) => resolve(code));
    });

  const url = await launch(options.env ?? {}, options.seed);
  port = Number(new URL(url).port);
  const handle: ServeHandle = {
    url,
    port,
    adminToken,
    dbPath,
    output: () => log,
    async stop() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await waitExit(child);
      clearTimeout(timer);
      if (!options.dir) await rm(dir, { recursive: true, force: true });
      return code;
    },
    async kill9() {
      child.kill("SIGKILL");
      await waitExit(child);
    },
    async restart(env = {}) {
      await launch({ ...options.env, ...env }, undefined);
    },
  };
  return handle;
}

/** Kills any service a failed test left behind. Call from afterEach. */
export async function killLeftoverServes(): Promise<void> {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
}

async function admin(serve: ServeHandle, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${serve.url}${path}`, {
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
