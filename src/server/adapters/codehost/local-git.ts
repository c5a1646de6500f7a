// The local code host: one bare git repository per workspace repository under a root folder (created with an
// initial commit on `main`), pull requests numbered per repository in the store with their title, body and draft
// flag, `merged` when `main` contains the branch's head, and issues held in the store (local-issues.ts).
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { pullRequestNumberLock } from "../../store/lock-keys.js";
import type { Store } from "../../store/store.js";
import { loadExeca } from "../processes/load-execa.js";
import { addLocalComment, codehostIssueKey } from "./local-comments.js";
import { createLocalIssues } from "./local-issues.js";
import { type Codehost, CodehostError, type OpenedPullRequest } from "./port.js";

export const DEFAULT_BRANCH = "main";

const GIT_ENV = {
  GIT_AUTHOR_NAME: "Baton",
  GIT_AUTHOR_EMAIL: "baton@baton.invalid",
  GIT_COMMITTER_NAME: "Baton",
  GIT_COMMITTER_EMAIL: "baton@baton.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
};

export function createLocalCodehost(options: { db: Store; root: string; now: () => Date }): Codehost {
  const creating = new Map<string, Promise<string>>();
  const pathOf = (workspaceId: string, repo: string) => join(options.root, workspaceId, `${repo}.git`);
  const git = (dir: string, args: string[]) =>
    loadExeca().then((execa) => execa("git", ["--git-dir", dir, ...args], { env: GIT_ENV, stdin: "ignore" }));

  const ensure = (workspaceId: string, repo: string): Promise<string> => {
    const dir = pathOf(workspaceId, repo);
    let pending = creating.get(dir);
    if (!pending) {
      pending = (async () => {
        if (
          !(await stat(join(dir, "HEAD")).then(
            () => true,
            () => false,
          ))
        ) {
          await mkdir(dir, { recursive: true });
          const execa = await loadExeca();
          await execa("git", ["init", "--quiet", "--bare", "--initial-branch", DEFAULT_BRANCH, dir], {
            env: GIT_ENV,
          });
          const tree = (
            await execa("git", ["--git-dir", dir, "mktree"], { env: GIT_ENV, input: "" })
          ).stdout.trim();
          const commit = (await git(dir, ["commit-tree", tree, "-m", "initial commit"])).stdout.trim();
          await git(dir, ["update-ref", `refs/heads/${DEFAULT_BRANCH}`, commit]);
        }
        return dir;
      })();
      creating.set(dir, pending);
      pending.catch(() => creating.delete(dir));
    }
    return pending;
  };

  return {
    kind: "local",
    ...createLocalIssues(options.db),
    async postComment({ workspaceId, repo, number, body }) {
      await addLocalComment(
        options.db,
        { workspaceId, source: "codehost", issueKey: codehostIssueKey(repo, number), body },
        options.now(),
      );
    },
    async gitUrl(workspaceId, repo) {
      return pathToFileURL(await ensure(workspaceId, repo)).href;
    },
    async openPullRequest(input): Promise<OpenedPullRequest> {
      const dir = await ensure(input.workspaceId, input.repo);
      const head = await git(dir, ["rev-parse", "--verify", "--quiet", `refs/heads/${input.branch}`]).catch(
        () => null,
      );
      if (!head) throw new CodehostError(`branch ${input.branch} was not pushed to ${input.repo}`);
      const existing = (await options.db.get(
        "SELECT number, url, merged FROM pull_requests WHERE workspace_id = ? AND repo = ? AND branch = ?",
        [input.workspaceId, input.repo, input.branch],
      )) as { number: number; url: string; merged: number } | undefined;
      if (existing) {
        // A later turn's request updates what it says; what it leaves unset stays as it was.
        await options.db.run(
          `UPDATE pull_requests SET title = ?, body = coalesce(?, body), draft = coalesce(?, draft)
           WHERE workspace_id = ? AND repo = ? AND number = ?`,
          [
            input.title,
            input.body ?? null,
            input.draft === undefined ? null : input.draft ? 1 : 0,
            input.workspaceId,
            input.repo,
            existing.number,
          ],
        );
        return { number: existing.number, url: existing.url, merged: existing.merged === 1 };
      }
      return await options.db.transaction(async (tx) => {
        // Numbering reads the highest number and writes the next: one writer per repository at a time, or two
        // instances (PostgreSQL, read committed) would both take the same number.
        await tx.lock(pullRequestNumberLock(input.workspaceId, input.repo));
        const next = (
          (await options.db.get(
            "SELECT coalesce(max(number), 0) + 1 AS n FROM pull_requests WHERE workspace_id = ? AND repo = ?",
            [input.workspaceId, input.repo],
          )) as { n: number }
        ).n;
        const url = `${pathToFileURL(dir).href}#pull/${next}`;
        await options.db.run(
          `INSERT INTO pull_requests (workspace_id, repo, number, branch, task_id, url, created_at, title, body, draft)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            input.workspaceId,
            input.repo,
            next,
            input.branch,
            input.taskId,
            url,
            options.now().toISOString(),
            input.title,
            input.body ?? `Opened by Baton for task ${input.taskId}.`,
            input.draft ? 1 : 0,
          ],
        );
        return { number: next, url, merged: false };
      });
    },
    async isMerged(input) {
      const row = (await options.db.get(
        "SELECT branch, merged FROM pull_requests WHERE workspace_id = ? AND repo = ? AND number = ?",
        [input.workspaceId, input.repo, input.number],
      )) as { branch: string; merged: number } | undefined;
      if (!row) return false;
      if (row.merged === 1) return true;
      const dir = await ensure(input.workspaceId, input.repo);
      const merged = await git(dir, [
        "merge-base",
        "--is-ancestor",
        `refs/heads/${row.branch}`,
        `refs/heads/${DEFAULT_BRANCH}`,
      ]).then(
        () => true,
        () => false,
      );
      if (merged)
        await options.db.run(
          "UPDATE pull_requests SET merged = 1 WHERE workspace_id = ? AND repo = ? AND number = ?",
          [input.workspaceId, input.repo, input.number],
        );
      return merged;
    },
    async readDefaultBranchFile(input) {
      if (!/^[A-Za-z0-9_.-]+$/.test(input.path)) return null;
      const dir = await ensure(input.workspaceId, input.repo);
      const shown = await git(dir, ["show", `refs/heads/${DEFAULT_BRANCH}:${input.path}`]).catch(() => null);
      return shown ? String(shown.stdout) : null;
    },
  };
}
