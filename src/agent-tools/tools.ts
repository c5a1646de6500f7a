// The two tools as the agent sees them: what each is for, its arguments, and what a recorded call answers.
// The answers say what happens next, because the agent acts on them: end the turn now, or finish and let the
// service push and open the pull request.
import { AskUserInputSchema, OpenPullRequestInputSchema } from "./schemas.js";
import type { AgentToolCall } from "./turn-requests.js";
import type { AgentToolName } from "./wire.js";

type InputOf<N extends AgentToolName> = Extract<AgentToolCall, { tool: N }>["input"];

/** MCP's tool annotations: hints an agent may use to decide whether to ask its user before a call. */
export interface AgentToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export const AGENT_TOOLS = {
  ask_user: {
    title: "Ask the user",
    description:
      "Ask the user who gave you this task a question when you cannot go on without their answer (a decision " +
      "only they can make, information you cannot find). Your turn ends with the question; their answer " +
      "arrives as your next message. Ask with this tool, not in your reply text.",
    inputSchema: AskUserInputSchema,
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false } as AgentToolAnnotations,
    answer: (_input: InputOf<"ask_user">) =>
      "Your question is recorded and goes to the user when this turn ends. End your turn now: stop working " +
      "and do not wait for an answer in this turn. The user's answer will arrive as your next message.",
  },
  open_pull_request: {
    title: "Open or update the pull request",
    description:
      "Ask Baton to open this task's pull request, or update the one it opened before, from your checkout of " +
      "the task's repository ($BATON_CHECKOUT_ROOT/<owner>/<name>). Baton commits what you left uncommitted " +
      "there, pushes it as the task's branch and opens the pull request when your turn ends: do not push or " +
      "open one yourself. Report every check the repository's agent instructions require in checks. Set draft " +
      "when a required check could not run or failed (Baton also opens a draft when its disclosure says a " +
      "required check did not pass or was not reported).",
    inputSchema: OpenPullRequestInputSchema,
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    } as AgentToolAnnotations,
    answer: (input: InputOf<"open_pull_request">) =>
      `Recorded${input.draft ? " as a draft" : ""}: when this turn ends, Baton pushes this task's branch from ` +
      "your checkout (committing what you left uncommitted there) and " +
      `opens the pull request "${input.title}", or updates the one it opened before. Nothing is pushed yet. ` +
      "Its body will not be yours as written: it will be Baton's disclosure (what `baton disclose` prints) " +
      "followed by your body as notes, so keep secrets and raw command output out of them. Calling this tool " +
      "again in this turn replaces this request. Finish your work, commit it, and end your turn with a short " +
      "summary.",
  },
} satisfies Record<AgentToolName, unknown>;
