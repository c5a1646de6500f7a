// An agent adapter the test drives: each turn waits until the test answers it (or stop aborts it). It stands in
// for a real agent where a rule depends on when the agent answers ("a message sent while the agent is working"),
// which a timed delay could only approximate. The scripted and command adapters are tested on their own.
import type {
  AgentRunner,
  ConversationEntry,
  RunTurnInput,
  TurnResult,
} from "../../../src/server/adapters/agents/port.js";

export interface GatedTurn {
  taskId: string;
  conversation: readonly ConversationEntry[];
  answer(result: TurnResult): void;
}

export function createGatedAgent(): AgentRunner & {
  turns: GatedTurn[];
  waiting(taskId: string): GatedTurn | undefined;
} {
  const turns: GatedTurn[] = [];
  const open = new Set<GatedTurn>();
  return {
    name: "gated",
    turns,
    waiting: (taskId) => [...open].find((t) => t.taskId === taskId),
    runTurn(input: RunTurnInput): Promise<TurnResult> {
      return new Promise((resolve) => {
        const turn: GatedTurn = {
          taskId: input.task.id,
          conversation: input.conversation,
          answer: (result) => {
            open.delete(turn);
            resolve(result);
          },
        };
        turns.push(turn);
        open.add(turn);
        input.signal.addEventListener(
          "abort",
          () => turn.answer({ kind: "error", code: "stopped", reason: "stopped" }),
          { once: true },
        );
      });
    },
  };
}

export const reply = (body: string, kind: "response" | "clarify" = "response"): TurnResult => ({
  kind: "reply",
  reply: { kind, body },
});
