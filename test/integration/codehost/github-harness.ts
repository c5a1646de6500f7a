// The GitHub adapter against the loopback fake code host (test/helpers/fake-codehost: no code host is reachable
// from the test machine): a real SQLite store seeded with fixtures/seeds/api.json, the fake's installation
// recorded for ws_acme, an adapter whose clock a test can move, and every log line kept for canary checks.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { pino } from "pino";
import { createGithubCodehost } from "../../../src/server/adapters/codehost/github/adapter.js";
import {
  recordInstallation,
  setInstallationRepos,
} from "../../../src/server/adapters/codehost/installations.js";
import { applySeed, ephemeralSecretBox, SeedDocumentSchema } from "../../../src/server/index.js";
import type { Store } from "../../../src/server/store/store.js";
import { type FakeCodehost, startFakeCodehost } from "../../helpers/fake-codehost/index.js";
import { openTestStore } from "../../helpers/test-store.js";
import { API_SEED } from "../api/harness.js";

const run = promisify(execFile);
export const WORKSPACE = "ws_acme";
export const INSTALLATION = 501;

export interface GithubHarness {
  fake: FakeCodehost;
  db: Store;
  logs: string[];
  dir: string;
  /** A new adapter (its own token cache) whose clock runs `offsetMs` ahead of the real one. */
  adapter(options?: {
    maxWaitMs?: number;
    timeoutMs?: number;
  }): ReturnType<typeof createGithubCodehost> & { clock: { offsetMs: number } };
  /** Clones `repo` with `token`, commits a file on `branch` and pushes it; rejects when git is refused. */
  push(repo: string, branch: string, token: string): Promise<void>;
  close(): Promise<void>;
}

export async function createGithubHarness(): Promise<GithubHarness> {
  const dir = await mkdtemp(join(tmpdir(), "github-adapter-"));
  const fake = await startFakeCodehost();
  await fake.addRepo("acme/web");
  await fake.addRepo("acme/api", { defaultBranch: "trunk" });
  await fake.addRepo("other/secret");
  fake.addInstallation(INSTALLATION, "acme", ["acme/web", "acme/api"]);
  fake.addInstallation(502, "other", ["other/secret"]);
  const db = await openTestStore(dir);
  await applySeed(
    db,
    SeedDocumentSchema.parse(JSON.parse(readFileSync(API_SEED, "utf8"))),
    new Date(),
    ephemeralSecretBox(),
  );
  const installation = await recordInstallation(
    db,
    { installationId: String(INSTALLATION), workspaceId: WORKSPACE, accountLogin: "acme" },
    new Date(),
  );
  await setInstallationRepos(db, installation, ["acme/web", "acme/api"]);
  const logs: string[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => logs.push(line) });
  let clones = 0;
  return {
    fake,
    db,
    logs,
    dir,
    adapter(options = {}) {
      const clock = { offsetMs: 0 };
      const adapter = createGithubCodehost({
        db,
        settings: fake.settings,
        logger,
        now: () => new Date(Date.now() + clock.offsetMs),
        maxWaitMs: options.maxWaitMs ?? 3_000,
        retryMinTimeoutMs: 10,
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
      });
      return Object.assign(adapter, { clock });
    },
    async push(repo, branch, token) {
      const work = join(dir, `clone-${++clones}`);
      const auth = `http.extraHeader=Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
      const env = {
        ...process.env,
        GIT_TERMINAL_PROMPT: "0",
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_AUTHOR_NAME: "Agent",
        GIT_AUTHOR_EMAIL: "agent@example.invalid",
        GIT_COMMITTER_NAME: "Agent",
        GIT_COMMITTER_EMAIL: "agent@example.invalid",
      };
      await run("git", ["-c", auth, "clone", "--quiet", `${fake.webUrl}/${repo}.git`, work], { env });
      await writeFile(join(work, "change.txt"), `work on ${branch}\n`);
      await run("git", ["-C", work, "checkout", "--quiet", "-b", branch], { env });
      await run("git", ["-C", work, "add", "change.txt"], { env });
      await run("git", ["-C", work, "commit", "--quiet", "-m", `work on ${branch}`], { env });
      await run("git", ["-C", work, "-c", auth, "push", "--quiet", "origin", branch], { env });
    },
    async close() {
      await db.close();
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
