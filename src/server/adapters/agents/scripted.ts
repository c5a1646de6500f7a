// The `scripted` agent: deterministic replies from rules in the seed document, for the demo and tests. The first
// rule whose `match` appears in the turn's last user message (case-insensitive; no `match` = any) decides. A rule
// can wait (honouring stop), ask instead of answer, fail, pause on access, write files, or push a branch to the
// code host and open a pull request, the way a real agent would. With a real code host it pushes as the App's
// installation: the Authorization header reaches git through GIT_CONFIG_* variables, never argv or a file.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { appendGitConfig, extraHeaderEntry } from "../codehost/push-credentials.js";
import { loadExeca } from "../processes/load-execa.js";
import type { AgentRunner, RunTurnInput, TurnResult } from "./port.js";
import { type ScriptedRule, ScriptedRuleSchema } from "./scripted-rules.js";

export { type ScriptedRule, ScriptedRuleSchema };

/** The rule for `message`: the first that matches, else the built-in answer. */
export function pickRule(rules: readonly ScriptedRule[], message: string): ScriptedRule {
  const lower = message.toLowerCase();
  return (
    rules.find((rule) => rule.match === undefined || lower.includes(rule.match.toLowerCase())) ??
    ScriptedRuleSchema.parse({
      reply: "Scripted agent: no rule matched; this is the default reply to: {prompt}",
    })
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((done) => {
    if (signal.aborted) return done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        done(false);
      },
      { once: true },
    );
  });
}

export interface ScriptedAgentOptions {
  /** The rules, read at each turn so that re-seeding takes effect at once. */
  rules: () => Promise<readonly ScriptedRule[]>;
  /** The git URL the code host accepts pushes for `repo` on. */
  gitUrl: (workspaceId: string, repo: string) => Promise<string>;
  /**
   * The Authorization header to push `repo` with (a real code host's installation token); null or unset: none,
   * as with the local code host.
   */
  gitAuthHeader?: ((workspaceId: string, repo: string) => Promise<string | null>) | undefined;
}

export function createScriptedAgent(options: ScriptedAgentOptions): AgentRunner {
  return {
    name: "scripted",
    async runTurn(input: RunTurnInput): Promise<TurnResult> {
      const last = [...input.conversation].reverse().find((e) => e.role === "user")?.body ?? "";
      const rule = pickRule(await options.rules(), last);
      if (rule.delayMs > 0 && !(await sleep(rule.delayMs, input.signal)))
        return { kind: "error", code: "stopped", reason: "the turn was stopped" };
      if (rule.error) return { kind: "error", code: "agent_failed", reason: rule.error };
      if (rule.needsAccess) return { kind: "needs_access", reason: rule.needsAccess };
      const body = rule.reply.replaceAll("{prompt}", last.split("\n")[0] ?? "");
      const files = Object.keys(rule.files);
      if (rule.pullRequest) {
        const repo = input.task.repo;
        if (!repo)
          return {
            kind: "error",
            code: "agent_failed",
            reason: "the scripted rule opens a pull request but the task has no repository",
          };
        const branch = rule.pullRequest.branch ?? `baton/${input.task.id}`;
        const url = await options.gitUrl(input.task.workspaceId, repo);
        const header = (await options.gitAuthHeader?.(input.task.workspaceId, repo)) ?? null;
        await pushBranch(input, { url, header }, branch, rule.files);
        return {
          kind: "reply",
          reply: {
            kind: rule.kind,
            body,
            pullRequest: { repo, branch, title: rule.pullRequest.title ?? input.task.title ?? branch },
            files,
          },
        };
      }
      await writeFiles(input.sandbox.workdir, rule.files);
      return { kind: "reply", reply: { kind: rule.kind, body, ...(files.length > 0 ? { files } : {}) } };
    },
  };
}

async function writeFiles(root: string, files: Record<string, string>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const target = resolve(root, path);
    if (!target.startsWith(resolve(root) + sep)) throw new Error(`scripted file ${path} leaves the sandbox`);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
}

/** The fixed author and committer of the commits the service makes, and git never asking for a password. */
export function gitAuthorEnvironment(author: { name: string; email: string }): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
    GIT_TERMINAL_PROMPT: "0",
  };
}

/**
 * The variables git runs with: the author (the scripted agent's unless given), and the header for the remote's
 * origin when there is one.
 */
export function scriptedGitEnvironment(
  remote: { url: string; header: string | null },
  author = { name: "Baton scripted agent", email: "agent@baton.invalid" },
): Record<string, string> {
  const base = {
    ...gitAuthorEnvironment(author),
    GIT_CONFIG_NOSYSTEM: "1",
    // Only this process's entries count, never a GIT_CONFIG_COUNT of the service's own environment.
    GIT_CONFIG_COUNT: "0",
  };
  if (remote.header === null || !/^https?:\/\//.test(remote.url)) return base;
  return appendGitConfig(base, [extraHeaderEntry(new URL(remote.url).origin, remote.header)]);
}

/** Clones the repository into the sandbox (once), commits the files on `branch` and pushes it. */
async function pushBranch(
  input: RunTurnInput,
  remote: { url: string; header: string | null },
  branch: string,
  files: Record<string, string>,
): Promise<void> {
  const { url } = remote;
  const checkout = join(input.sandbox.workdir, "checkout");
  const execa = await loadExeca();
  const env = scriptedGitEnvironment(remote);
  const git = (args: string[], cwd = checkout) =>
    execa("git", args, { cwd, cancelSignal: input.signal, stdin: "ignore", env });
  await mkdir(input.sandbox.workdir, { recursive: true });
  await git(["clone", "--quiet", url, checkout], input.sandbox.workdir).catch(async (error: unknown) => {
    // A second turn finds the checkout there already.
    if (
      !(await git(["rev-parse", "--git-dir"]).then(
        () => true,
        () => false,
      ))
    )
      throw error;
  });
  await git(["checkout", "--quiet", "-B", branch]);
  await writeFiles(checkout, files);
  await git(["add", "--all"]);
  await git(["commit", "--quiet", "--allow-empty", "-m", `baton: ${input.task.title ?? input.task.id}`]);
  await git(["push", "--quiet", "--force", "origin", `HEAD:refs/heads/${branch}`]);
}
