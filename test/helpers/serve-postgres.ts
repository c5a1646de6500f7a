// A real `baton serve --database-url` child on loopback, on a test schema of its own (test/helpers/postgres.ts):
// the schema goes in the URL as the connection's search_path, as an operator would put it. Several instances may
// share one schema; each has its own work folder and the same key file.
import { type ChildProcess, spawn } from "node:child_process";
import { HEADERS } from "../../src/transport/wire.js";
import { BATON_BIN } from "./cli.js";
import { TEST_DATABASE_URL } from "./postgres.js";
import { TEST_ADMIN_TOKEN } from "./serve.js";

export interface PostgresServe {
  url: string;
  opsUrl: string;
  adminUrl: string;
  /** Everything the child printed (stdout and stderr), for canary checks and failure messages. */
  output(): string;
  /** POST to the admin API with the admin token. */
  admin(path: string, body: unknown): Promise<Response>;
  /** SIGTERM and wait for the exit; returns the exit code (or signal name). */
  stop(): Promise<number | string>;
  /** SIGKILL (an instance dying mid-work) and wait for the exit. */
  kill9(): Promise<number | string>;
}

/** The test database's URL with `schema` as the search_path (`?options=-c search_path=<schema>`). */
export function schemaUrl(schema: string): string {
  return `${TEST_DATABASE_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}

export async function startPostgresServe(options: {
  databaseUrl: string;
  secretKeyFile: string;
  workDir: string;
  seed?: string;
  args?: string[];
  env?: Record<string, string>;
}): Promise<PostgresServe> {
  const args = [BATON_BIN, "serve", "--host", "127.0.0.1", "--port", "0", "--json"];
  args.push("--database-url", options.databaseUrl, "--secret-key-file", options.secretKeyFile);
  args.push("--work-dir", options.workDir, "--ops-listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0");
  if (options.seed) args.push("--seed", options.seed);
  args.push(...(options.args ?? []));
  const child: ChildProcess = spawn(process.execPath, args, {
    env: { ...process.env, BATON_LOG_LEVEL: "", ...options.env, BATON_ADMIN_TOKEN: TEST_ADMIN_TOKEN },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let log = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
    log += chunk.toString("utf8");
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    log += chunk.toString("utf8");
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  const listening = await new Promise<{ url: string; opsUrl: string; adminUrl: string }>(
    (resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`baton serve --database-url did not start in time:\n${log}`));
      }, 45_000);
      child.stdout!.on("data", () => {
        if (!out.includes("\n")) return;
        clearTimeout(timer);
        resolve(JSON.parse(out.slice(0, out.indexOf("\n"))));
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`baton serve --database-url exited (${code}) before listening:\n${log}`));
      });
    },
  );
  return {
    ...listening,
    output: () => log,
    admin: (path, body) =>
      fetch(new URL(path, listening.adminUrl), {
        method: "POST",
        headers: { "content-type": "application/json", [HEADERS.adminToken]: TEST_ADMIN_TOKEN },
        body: JSON.stringify(body),
      }),
    async kill9() {
      child.kill("SIGKILL");
      return exited;
    },
    async stop() {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
