// Reference section 4 rules 2 and 4 for `baton start`: start the task in the repository the user named, else in
// the checkout's code-host repositories in order (a not-connected one is said and the next tried), else without
// one (the agent picks). One idempotency key for the whole invocation: a 400 `invalid_repo` saves nothing on the
// service (src/server/domain/tasks/start-task.ts refuses before saving), so the key is still free for the next try.
import { refusalOf } from "./refusal.js";
import type { Candidate } from "./repository-choice.js";
import type { StartedTask, StartTaskBody } from "./schemas.js";

export interface StartApi {
  startTask(workspaceId: string, body: StartTaskBody, idempotencyKey: string): Promise<StartedTask>;
  getTask(workspaceId: string, taskId: string): Promise<StartedTask["task"]>;
}

export type StartNotice =
  | { type: "repository"; repo: string; remote: string | null }
  | { type: "not_connected"; repo: string; remote: string }
  | { type: "agent_picks"; why: "outside_checkout" | "no_codehost_remote" | "none_connected" }
  | { type: "saved_not_handed_over"; taskId: string };

export interface StartInput {
  workspaceId: string;
  prompt: string;
  title: string | undefined;
  /** `-r`: never replaced; a refusal is the command's error. */
  repoFlag: string | undefined;
  /** The checkout's code-host repositories in order; undefined outside a checkout. */
  candidates: readonly Candidate[] | undefined;
  idempotencyKey: string;
  notify(notice: StartNotice): void;
}

export async function startInRepository(api: StartApi, input: StartInput): Promise<StartedTask> {
  const base: StartTaskBody = {
    prompt: input.prompt,
    ...(input.title !== undefined ? { title: input.title } : {}),
  };
  const start = (repo: string | undefined) =>
    startOnce(api, input, repo === undefined ? base : { ...base, repo });
  if (input.repoFlag !== undefined) {
    const started = await start(input.repoFlag);
    input.notify({ type: "repository", repo: input.repoFlag, remote: null });
    return started;
  }
  for (const candidate of input.candidates ?? []) {
    try {
      const started = await start(candidate.repo);
      input.notify({ type: "repository", repo: candidate.repo, remote: candidate.remote });
      return started;
    } catch (error) {
      if (refusalOf(error)?.wireError !== "invalid_repo") throw error;
      input.notify({ type: "not_connected", repo: candidate.repo, remote: candidate.remote });
    }
  }
  input.notify({
    type: "agent_picks",
    why:
      input.candidates === undefined
        ? "outside_checkout"
        : input.candidates.length === 0
          ? "no_codehost_remote"
          : "none_connected",
  });
  return start(undefined);
}

/**
 * One start (the HTTP layer already tried three times). A 503 `unavailable` naming the saved task after the last
 * try is not a failure to start: the task exists and its prompt goes to the agent once the service can hand it
 * over, so the client reads the task and follows it rather than inviting a second start.
 */
async function startOnce(api: StartApi, input: StartInput, body: StartTaskBody): Promise<StartedTask> {
  try {
    return await api.startTask(input.workspaceId, body, input.idempotencyKey);
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal?.wireError !== "unavailable" || !refusal.taskId || !refusal.messageId) throw error;
    input.notify({ type: "saved_not_handed_over", taskId: refusal.taskId });
    return { task: await api.getTask(input.workspaceId, refusal.taskId), messageId: refusal.messageId };
  }
}
