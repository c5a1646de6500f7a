// The fake code host's repositories: bare git repositories under a temp folder, changed with git's plumbing, and
// served over git's smart HTTP protocol by `git http-backend` (a CGI; the service's own cgi.ts reads its head).
import { execFile, spawn } from "node:child_process";
import { mkdir } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { parseCgiHead } from "../../../src/server/surfaces/git/cgi.js";

const run = promisify(execFile);
const ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "Fake",
  GIT_AUTHOR_EMAIL: "fake@example.invalid",
  GIT_COMMITTER_NAME: "Fake",
  GIT_COMMITTER_EMAIL: "fake@example.invalid",
  GIT_CONFIG_NOSYSTEM: "1",
};

export const bareDirOf = (root: string, repo: string) => join(root, `${repo}.git`);

export async function git(dir: string, args: string[], input?: string): Promise<string> {
  if (input === undefined) return (await run("git", ["--git-dir", dir, ...args], { env: ENV })).stdout;
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["--git-dir", dir, ...args], { env: ENV });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`git ${args[0]} failed`))));
    child.stdin.end(input);
  });
}

/** A bare repository with one empty commit on `branch`. */
export async function createBareRepo(dir: string, branch: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await run("git", ["init", "--quiet", "--bare", "--initial-branch", branch, dir], { env: ENV });
  const tree = (await git(dir, ["mktree"], "")).trim();
  const commit = (await git(dir, ["commit-tree", tree, "-m", "initial commit"])).trim();
  await git(dir, ["update-ref", `refs/heads/${branch}`, commit]);
}

export async function headOf(dir: string, branch: string): Promise<string | null> {
  return git(dir, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`]).then(
    (out) => out.trim() || null,
    () => null,
  );
}

/** Commits `path` (at the root) with `content` on `branch`. */
export async function commitRootFile(dir: string, branch: string, path: string, content: string) {
  const blob = (await git(dir, ["hash-object", "-w", "--stdin"], content)).trim();
  const entries = (await git(dir, ["ls-tree", `refs/heads/${branch}`]))
    .split("\n")
    .filter((line) => line && !line.endsWith(`\t${path}`));
  const tree = (
    await git(dir, ["mktree"], `${[...entries, `100644 blob ${blob}\t${path}`].join("\n")}\n`)
  ).trim();
  const parent = (await headOf(dir, branch))!;
  const commit = (await git(dir, ["commit-tree", tree, "-p", parent, "-m", `add ${path}`])).trim();
  await git(dir, ["update-ref", `refs/heads/${branch}`, commit]);
}

/** Merges `branch` into `base` with a merge commit (the pull request's merge button). */
export async function mergeBranch(dir: string, base: string, branch: string): Promise<void> {
  const head = (await headOf(dir, branch))!;
  const baseHead = (await headOf(dir, base))!;
  const tree = (await git(dir, ["rev-parse", `${head}^{tree}`])).trim();
  const commit = (
    await git(dir, ["commit-tree", tree, "-p", baseHead, "-p", head, "-m", `merge ${branch}`])
  ).trim();
  await git(dir, ["update-ref", `refs/heads/${base}`, commit]);
}

export async function readFileAt(dir: string, branch: string, path: string): Promise<string | null> {
  return git(dir, ["show", `refs/heads/${branch}:${path}`]).catch(() => null);
}

/** Serves one smart-HTTP request for a repository under `root` with `git http-backend`. */
export async function serveGit(
  req: IncomingMessage,
  res: ServerResponse,
  cgi: { root: string; pathInfo: string; query: string },
): Promise<void> {
  const child = spawn("git", ["http-backend"], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_PROJECT_ROOT: cgi.root,
      GIT_HTTP_EXPORT_ALL: "1",
      REMOTE_USER: "x-access-token",
      REMOTE_ADDR: "127.0.0.1",
      REQUEST_METHOD: req.method ?? "GET",
      PATH_INFO: cgi.pathInfo,
      QUERY_STRING: cgi.query,
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      ...(req.headers["content-length"] ? { CONTENT_LENGTH: req.headers["content-length"] } : {}),
      HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"] ?? ""),
      GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
    },
    stdio: ["pipe", "pipe", "ignore"],
  });
  req.pipe(child.stdin);
  const head = await parseCgiHead(child.stdout);
  if (!head) {
    res.writeHead(502).end();
    return;
  }
  res.writeHead(head.status, Object.fromEntries(head.headers));
  head.body.pipe(res);
}
