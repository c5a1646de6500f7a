// The client commands through the real `baton` binary against a real `baton serve` (the API seed, the manual
// agent so turns end only when a test says): each test gets its own config folder, and every output is kept for
// the canary check. Seeded tokens a test revokes (logout) are made fresh with `baton admin token create`.
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BatonRun, runBaton } from "../../helpers/cli.js";
import { type ServeHandle, startServe } from "../../helpers/serve.js";
import { API_SEED } from "../api/harness.js";

export interface ClientRig {
  serve: ServeHandle;
  /** Every stdout and stderr the rig's runs printed. */
  outputs: string[];
  /** A fresh config folder (XDG_CONFIG_HOME) and HOME for one test. */
  newHome(): Promise<string>;
  run(
    home: string,
    args: readonly string[],
    options?: { input?: string; env?: Record<string, string>; timeoutMs?: number },
  ): Promise<BatonRun>;
  /** A new personal access token of a seeded member (its own, to revoke freely). */
  newToken(email: string): Promise<string>;
  /** Signs in by piped token; `args` e.g. ["-w", "ws_acme"]. */
  login(home: string, token: string, args?: readonly string[]): Promise<BatonRun>;
  configFile(home: string): string;
  /** Every file under the homes made so far, by path. */
  homeFiles(): Promise<string[]>;
}

export async function startClientRig(): Promise<ClientRig> {
  const serve = await startServe({ seed: API_SEED, args: ["--agent", "manual"] });
  const root = await mkdtemp(join(tmpdir(), "client-rig-"));
  const outputs: string[] = [];
  let homes = 0;
  const rig: ClientRig = {
    serve,
    outputs,
    async newHome() {
      const home = join(root, `home-${++homes}`);
      const { mkdir } = await import("node:fs/promises");
      await mkdir(home, { recursive: true });
      return home;
    },
    async run(home, args, options = {}) {
      const result = await runBaton(args, {
        ...(options.input === undefined ? { stdin: "ignore" } : { input: options.input }),
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
        env: {
          BATON_API_URL: serve.url,
          XDG_CONFIG_HOME: join(home, "config"),
          HOME: home,
          ...options.env,
        },
      });
      outputs.push(result.stdout, result.stderr);
      return result;
    },
    async newToken(email) {
      const made = await runBaton(
        [
          "admin",
          "token",
          "create",
          "--url",
          serve.adminUrl,
          "--email",
          email,
          "--name",
          `rig-${Date.now()}`,
        ],
        { env: { BATON_ADMIN_TOKEN: serve.adminToken } },
      );
      if (made.exitCode !== 0) throw new Error(`could not make a token: ${made.stderr}`);
      return made.stdout.trim();
    },
    login(home, token, args = []) {
      return rig.run(home, ["login", ...args], { input: token });
    },
    configFile(home) {
      return join(home, "config", "baton", "config.json");
    },
    async homeFiles() {
      const entries = await readdir(root, { withFileTypes: true, recursive: true });
      return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
    },
  };
  return rig;
}
