// One prompt turn on a live session: `session/prompt`, raced against the agent failing, the stop signal and the
// agent time limit. A stop or the limit sends `session/cancel` and gives the agent a grace to end the turn; an
// agent that ends it keeps its session for the follow-up, one that does not loses its process group.
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { describeProblem, PromptAnswerSchema } from "./answers.js";
import type { AcpSession } from "./session.js";
import { settle } from "./settle.js";
import type { TurnEnd, TurnOutcome } from "./turn-result.js";

export interface TurnOptions {
  signal: AbortSignal;
  /** The agent time limit for the turn. */
  timeoutMs: number;
  /** How long a cancelled turn may take to end before the process group is ended. */
  graceMs: number;
}

export async function runPromptTurn(
  session: AcpSession,
  prompt: ContentBlock[],
  options: TurnOptions,
): Promise<TurnOutcome> {
  const collector = session.collector;
  session.cancelling = false;
  const finish = (end: TurnEnd): TurnOutcome => {
    // Updates from now on belong to the next turn.
    session.collector = session.options.newCollector();
    return { ...end, activity: collector.activity.records() };
  };
  const answer = session.connection.agent.request("session/prompt", { sessionId: session.sessionId, prompt });
  const first = await settle(answer, session.failure, {
    deadlineMs: options.timeoutMs,
    signal: options.signal,
  });
  if (first.kind === "value") {
    // Updates sent just before the answer are still being dispatched: let them land in this turn.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const parsed = PromptAnswerSchema.safeParse(first.value);
    if (!parsed.success) {
      session.fail(`answered session/prompt wrongly: ${describeProblem(parsed.error)}`);
      return finish({ kind: "failed", reason: session.failure.reason! });
    }
    return finish({ kind: "ended", stopReason: parsed.data.stopReason, ...collector.reply() });
  }
  if (first.kind === "error")
    return finish({ kind: "failed", reason: `answered session/prompt with an error: ${first.message}` });
  if (first.kind === "failed") return finish({ kind: "failed", reason: first.reason });
  const kind = first.kind === "aborted" ? "stopped" : "timed_out";
  session.cancelling = true;
  collector.activity.add("cancel", { why: kind === "stopped" ? "the turn was stopped" : "the time limit" });
  await session.connection.agent
    .notify("session/cancel", { sessionId: session.sessionId })
    .catch(() => undefined);
  const second = await settle(answer, session.failure, { deadlineMs: options.graceMs });
  if (second.kind === "value" || second.kind === "error") {
    await new Promise<void>((resolve) => setImmediate(resolve));
    return finish({ kind, ended: "by_the_agent" });
  }
  // No answer within the grace (or the agent died meanwhile): its process group ends, its session is kept for
  // session/load by the next process.
  await session.close();
  return finish({ kind, ended: "by_kill" });
}
