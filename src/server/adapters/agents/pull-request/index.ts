// What the service does at the end of a turn whose agent called `open_pull_request`: push the task's branch from
// the agent's checkout (push-branch.ts), make the disclosure where the evidence is (disclose.ts) and compose the
// pull request (body.ts). The task engine then opens or updates it through the code host.
import type { ReportedCheck } from "../../../../agent-tools/index.js";
import { createSanitiser } from "../../../../evidence/index.js";
import type { AgentReply, RunTurnInput } from "../port.js";
import { gitAuthorEnvironment, scriptedGitEnvironment } from "../scripted.js";
import { composePullRequest } from "./body.js";
import { discloseInSandbox } from "./disclose.js";
import { pushTaskBranch, SERVICE_GIT_AUTHOR } from "./push-branch.js";
import { sandboxCommands } from "./run-in-sandbox.js";

export { AGENT_NOTES_HEADING, composePullRequest } from "./body.js";
export { checkFlags } from "./disclose.js";
export { SERVICE_GIT_AUTHOR } from "./push-branch.js";

export interface PullRequestFinishOptions {
  /** How `baton` runs on the service's machine (host sandboxes): an absolute Node and the built CLI. */
  baton: { command: string; args?: readonly string[] };
  /** A host sandbox's commands run with these variables only: the agent's own (its sandbox's over PATH and HOME). */
  hostEnv: Readonly<Record<string, string>>;
  /** Where a host sandbox's branch is pushed (the code host's URL); unset: the sandbox's BATON_GIT_URL. */
  gitUrl?: ((workspaceId: string, repo: string) => Promise<string>) | undefined;
  /** The Authorization header a host-side push sends (a real code host's installation); unset or null: none. */
  gitAuthHeader?: ((workspaceId: string, repo: string) => Promise<string | null>) | undefined;
  /** Each of the push and the disclosure (default 120 s). */
  timeoutMs?: number;
}

export interface PullRequestRequest {
  title: string;
  body?: string | undefined;
  draft: boolean;
  checks?: readonly ReportedCheck[] | undefined;
}

export type PullRequestFinish =
  | { ok: true; pullRequest: NonNullable<AgentReply["pullRequest"]> }
  | { ok: false; reason: string };

export async function finishPullRequest(
  input: RunTurnInput,
  request: PullRequestRequest,
  options: PullRequestFinishOptions,
): Promise<PullRequestFinish> {
  const { task, sandbox, signal } = input;
  const repo = task.repo;
  if (!repo)
    return { ok: false, reason: "the agent asked for a pull request but the task has no repository" };
  const sanitiser = createSanitiser({ secrets: sandbox.secrets });
  const clean = (text: string) => sanitiser.sanitise(text).text;
  const timeoutMs = options.timeoutMs ?? 120_000;
  const branch = `baton/${task.id}`;
  const title = clean(request.title).slice(0, 200);
  const commands = sandboxCommands(sandbox, {
    baton: [options.baton.command, ...(options.baton.args ?? [])],
    env: options.hostEnv,
  });
  const remote = await pushRemote(input, repo, options);
  if (!remote) return { ok: false, reason: `there is no code host URL to push ${repo} to` };
  const pushed = await pushTaskBranch(commands, {
    repo,
    branch,
    url: remote.url,
    message: `baton: ${title}`,
    env: remote.env,
    signal,
    timeoutMs,
  });
  if (!pushed.ok) return { ok: false, reason: `the branch could not be pushed: ${clean(pushed.problem)}` };
  const disclosure = await discloseInSandbox(commands, {
    repo,
    // Cleaned before they reach the renderer, which may cut a long note (and a secret in it) past recognition.
    checks: (request.checks ?? []).map((c) => ({
      ...c,
      name: clean(c.name),
      ...(c.note === undefined ? {} : { note: clean(c.note) }),
    })),
    signal,
    timeoutMs,
  });
  const composed = composePullRequest({ disclosure, request, clean });
  return { ok: true, pullRequest: { repo, branch, title, ...composed } };
}

/**
 * In a box, the URL the box was given (the local code host's route, or the real one through the proxy with the
 * token's placeholder) and git's settings of the box; on the host, the code host's URL and its header.
 */
async function pushRemote(
  input: RunTurnInput,
  repo: string,
  options: PullRequestFinishOptions,
): Promise<{ url: string; env: Record<string, string> } | undefined> {
  const { sandbox, task } = input;
  if (sandbox.box) {
    const url = sandbox.env.BATON_GIT_URL;
    return url ? { url, env: gitAuthorEnvironment(SERVICE_GIT_AUTHOR) } : undefined;
  }
  const url = (await options.gitUrl?.(task.workspaceId, repo)) ?? sandbox.env.BATON_GIT_URL;
  if (!url) return undefined;
  const header = (await options.gitAuthHeader?.(task.workspaceId, repo)) ?? null;
  return { url, env: scriptedGitEnvironment({ url, header }, SERVICE_GIT_AUTHOR) };
}
