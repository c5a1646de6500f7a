// The `manual` agent (`baton serve --agent manual`): each turn waits until an operator answers it through the
// admin API (`baton admin task answer`) or a member stops it, so stop, queueing and the running-task limit can be
// tried by hand and by black-box tests. Nothing is decided here but which waiting turn an answer ends.
import type { AgentRunner, RunTurnInput, TurnResult } from "./port.js";

export type ManualAnswer = { kind: "reply" | "clarify" | "fail"; text: string };

export interface ManualAgent extends AgentRunner {
  readonly name: "manual";
  /** Ends the task's waiting turn with `answer`; false when no turn of that task waits here. */
  answer(taskId: string, answer: ManualAnswer): boolean;
}

export function isManualAgent(agent: AgentRunner): agent is ManualAgent {
  return agent.name === "manual" && typeof (agent as Partial<ManualAgent>).answer === "function";
}

/** What a turn ends with for an operator's answer. */
export function toTurnResult(answer: ManualAnswer): TurnResult {
  if (answer.kind === "fail") return { kind: "error", code: "agent_failed", reason: answer.text };
  return {
    kind: "reply",
    reply: { kind: answer.kind === "reply" ? "response" : "clarify", body: answer.text },
  };
}

export function createManualAgent(): ManualAgent {
  // A task has at most one running turn, so the task id names the waiting turn.
  const waiting = new Map<string, (result: TurnResult) => void>();
  return {
    name: "manual",
    runTurn(input: RunTurnInput): Promise<TurnResult> {
      return new Promise((resolve) => {
        const stopped = () => end({ kind: "error", code: "stopped", reason: "the turn was stopped" });
        const end = (result: TurnResult) => {
          if (waiting.get(input.task.id) === end) waiting.delete(input.task.id);
          input.signal.removeEventListener("abort", stopped);
          resolve(result);
        };
        if (input.signal.aborted) return stopped();
        waiting.set(input.task.id, end);
        input.signal.addEventListener("abort", stopped, { once: true });
      });
    },
    answer(taskId, answer) {
      const end = waiting.get(taskId);
      if (!end) return false;
      end(toTurnResult(answer));
      return true;
    },
  };
}
