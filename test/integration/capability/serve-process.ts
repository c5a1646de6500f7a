// A real `baton serve` child process for the capability suites (own helper: test/helpers/serve.ts is being
// reshaped by two other areas at once). Port 0 on 127.0.0.1, a real SQLite file, the admin API for sandboxes.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { ADMIN_PATHS, CreateSandboxResponseSchema, HEADERS } from "../../../src/transport/wire.js";
import { BATON_BIN } from "../../helpers/cli.js";

export interface CapabilityServe {
  url: string;
  dbPath: string;
  adminToken: string;
  output(): string;
  stop(): Promise<number | null>;
}

const running = new Set<ChildProcess>();

export async function startCapabilityServe(options: {
  dbPath: string;
  seed?: string;
  args?: string[];
  env?: Record<string, string>;
}): Promise<CapabilityServe> {
  const adminToken = `admin-${randomBytes(16).toString("hex")}`;
  const args = [BATON_BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--db", options.dbPath, "--json"];
  if (options.seed) args.push("--seed", options.seed);
  args.push(...(options.args ?? []));
  const child = spawn(process.execPath, args, {
    env: { ...process.env, BATON_LOG_LEVEL: "info", ...options.env, BATON_ADMIN_TOKEN: adminToken },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  let log = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    log += chunk.toString("utf8");
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`baton serve did not start in time:\n${log}`)), 20_000);
    void exited.then((code) => reject(new Error(`baton serve exited early (${code}):\n${log}`)));
    lines.once("line", (line) => {
      clearTimeout(timer);
      log += `${line}\n`;
      lines.on("line", (more) => {
        log += `${more}\n`;
      });
      resolve((JSON.parse(line) as { url: string }).url);
    });
  });
  return {
    url,
    dbPath: options.dbPath,
    adminToken,
    output: () => log,
    async stop() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      running.delete(child);
      return code;
    },
  };
}

/** Kills any service a failed test left behind. */
export function killLeftoverServes(): void {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
}

export interface Sandbox {
  sandboxId: string;
  env: Record<string, string>;
}

export async function createSandbox(
  serve: CapabilityServe,
  input: { workspaceId: string; engagementId: string },
): Promise<Sandbox> {
  const response = await fetch(`${serve.url}${ADMIN_PATHS.sandboxes}`, {
    method: "POST",
    headers: { "content-type": "application/json", [HEADERS.adminToken]: serve.adminToken },
    body: JSON.stringify(input),
  });
  const answer = CreateSandboxResponseSchema.parse(await response.json());
  return { sandboxId: answer.sandboxId, env: { ...answer.env } };
}
