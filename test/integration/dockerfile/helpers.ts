// A throwaway HOME with a checkout and a Dockerfile, and the built CLI run against it.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BatonRun, runBaton } from "../../helpers/cli.js";

export interface Sandbox {
  home: string;
  checkout: string;
  env: Record<string, string>;
  writeDockerfile(text: string, name?: string): Promise<string>;
  baton(args: string[], env?: Record<string, string>): Promise<BatonRun>;
  /** Every file under ~/.baton, concatenated, to look for values that must not be there. */
  batonFiles(): Promise<string>;
  cleanup(): Promise<void>;
}

export async function createSandbox(repository = "acme/api"): Promise<Sandbox> {
  const home = await mkdtemp(join(tmpdir(), "baton-dockerfile-"));
  const checkout = join(home, "checkouts", ...repository.split("/"));
  await mkdir(checkout, { recursive: true });
  const env = {
    HOME: home,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    BATON_CHECKOUT_ROOT: join(home, "checkouts"),
  };
  return {
    home,
    checkout,
    env,
    async writeDockerfile(text, name = "Dockerfile") {
      const file = join(checkout, name);
      await writeFile(file, text);
      return file;
    },
    baton: (args, extra = {}) =>
      runBaton(args, { cwd: checkout, env: { ...env, ...extra }, extendEnv: false }),
    async batonFiles() {
      const out: string[] = [];
      const walk = async (dir: string): Promise<void> => {
        for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
          const path = join(dir, entry.name);
          if (entry.isDirectory()) await walk(path);
          else out.push(await readFile(path, "utf8"));
        }
      };
      await walk(join(home, ".baton"));
      return out.join("\n");
    },
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}
