// How an ACP turn ends for the task engine: the agent's message text as the one reply (bounded to the reference's
// 100,000 characters), or an error whose reason names the agent and what happened: an empty turn or a stop reason
// other than `end_turn` says which, a stop is `stopped`, the limit `timed_out`. Every text, the activity included,
// passes through `clean` (the evidence sanitiser with the box's credentials) here and nowhere else.
import type { StopReason } from "@agentclientprotocol/sdk";
import type { ActivityRecord, TurnResult } from "../port.js";
import { sanitiseActivity } from "./sanitise-json.js";

export const MAX_REPLY_CHARS = 100_000;
/** The end of the reason an empty turn fails with (the tools' wrapper turns an `ask_user` turn's into a clarify). */
export const EMPTY_TURN = "ended its turn without a message";

/** How a turn ended, before the runner makes a turn result of it. */
export type TurnEnd =
  | { kind: "ended"; stopReason: StopReason | string; text: string; cut: number }
  | { kind: "stopped" | "timed_out"; ended: "by_the_agent" | "by_kill" }
  | { kind: "failed"; reason: string };

export type TurnOutcome = TurnEnd & { activity: ActivityRecord[] };

const STOP_REASONS: Readonly<Record<string, string>> = {
  refusal: "refused to go on (stop reason refusal)",
  max_tokens: "ran out of output tokens (stop reason max_tokens)",
  max_turn_requests: "reached its limit of model requests for a turn (stop reason max_turn_requests)",
  cancelled: "cancelled the turn on its own (stop reason cancelled)",
};

export interface ResultContext {
  /** The agent's name as reasons say it. */
  agentName: string;
  timeoutMs: number;
  clean: (text: string) => string;
}

export function toTurnResult(outcome: TurnOutcome, context: ResultContext): TurnResult {
  const { clean } = context;
  const agent = `the agent ${context.agentName}`;
  const activity = sanitiseActivity(outcome.activity, clean);
  const error = (code: "agent_failed" | "timed_out" | "stopped", reason: string): TurnResult => ({
    kind: "error",
    code,
    reason,
    activity,
  });
  switch (outcome.kind) {
    case "stopped":
      return error("stopped", "the turn was stopped");
    case "timed_out":
      return error("timed_out", `${agent} ran past its ${Math.round(context.timeoutMs / 1000)} s limit`);
    case "failed":
      return error("agent_failed", clean(`${agent} ${outcome.reason}`));
    case "ended": {
      const notice = STOP_REASONS[outcome.stopReason];
      const partial = outcome.text.trim() === "" ? "" : "; what it wrote is in the turn's activity";
      if (notice) return error("agent_failed", `${agent} ${notice}${partial}`);
      if (outcome.stopReason !== "end_turn")
        return error(
          "agent_failed",
          clean(`${agent} ended its turn with an unknown stop reason ${outcome.stopReason}`),
        );
      const text = clean(outcome.text).trim();
      if (text === "") return error("agent_failed", `${agent} ${EMPTY_TURN}`);
      return { kind: "reply", reply: { kind: "response", body: boundReply(text, outcome.cut) }, activity };
    }
  }
}

/** The reply within the limit, saying so when it was cut. */
function boundReply(text: string, cut: number): string {
  if (cut === 0 && text.length <= MAX_REPLY_CHARS) return text;
  const note = `\n\n[The agent's reply was cut at ${MAX_REPLY_CHARS.toLocaleString("en")} characters.]`;
  return text.slice(0, MAX_REPLY_CHARS - note.length) + note;
}
