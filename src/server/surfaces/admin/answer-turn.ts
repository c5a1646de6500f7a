// Ending a manual turn with an operator's answer, on whichever instance runs the turn: the instance the answer
// arrived at ends it when the turn waits there, and otherwise asks the instance that holds the turn's claim
// (adapters/instances/relay.ts), which ends it the same way and answers once the turn's end is recorded.
import { z } from "zod";
import { type AnswerTurnBody, AnswerTurnBodySchema } from "../../../transport/wire.js";
import { isManualAgent } from "../../adapters/agents/manual.js";
import { type InstanceRelay, InstanceUnreachable } from "../../adapters/instances/relay.js";
import { getTask } from "../../domain/tasks/task-store.js";
import type { AdminDeps } from "./deps.js";

export const TURN_ANSWER_REQUEST = "turn.answer";
/** How long the instance running the turn may take to record the turn's end. */
const ANSWER_TIMEOUT_MS = 60_000;

export type AnswerOutcome =
  | { answered: true; workspaceId: string; status: string }
  | { answered: false }
  /** Another instance runs the turn and cannot be reached; the reason says what to do. */
  | { answered: false; unreachable: string };

const OutcomeSchema = z.union([
  z.object({ answered: z.literal(true), workspaceId: z.string(), status: z.string() }),
  z.object({ answered: z.literal(false) }),
]);

type AnswerDeps = Pick<AdminDeps, "db" | "tasks" | "instance" | "now"> & {
  relay?: InstanceRelay | undefined;
};

/** Ends the task's turn if it waits on this instance; resolves once its end is recorded. */
export async function answerHere(
  deps: AnswerDeps,
  taskId: string,
  answer: AnswerTurnBody,
): Promise<AnswerOutcome> {
  const agent = deps.tasks.agent;
  const task = await getTask(deps.db, taskId);
  const turnId = task?.open_turn_state === "running" ? task.open_turn_id : null;
  if (!turnId || !isManualAgent(agent) || !agent.answer(taskId, answer)) return { answered: false };
  await deps.tasks.runtime.whenDone(turnId);
  const after = (await getTask(deps.db, taskId))!;
  return { answered: true, workspaceId: after.workspace_id, status: after.status };
}

/** Here, or on the instance holding the running turn's claim. */
export async function answerTurn(
  deps: AnswerDeps,
  taskId: string,
  answer: AnswerTurnBody,
): Promise<AnswerOutcome> {
  const here = await answerHere(deps, taskId, answer);
  if (here.answered || !deps.relay) return here;
  const turn = await deps.db.get<{ claimed_by: string | null; lease_until_ms: number | null }>(
    `SELECT r.claimed_by, r.lease_until_ms FROM tasks t JOIN task_turns r ON r.id = t.open_turn_id
     WHERE t.id = ? AND r.state = 'running'`,
    [taskId],
  );
  if (!turn?.claimed_by || turn.claimed_by === deps.instance.id) return here;
  if (Number(turn.lease_until_ms ?? 0) < deps.now().getTime())
    return {
      answered: false,
      unreachable: `instance ${turn.claimed_by}, which runs the turn, stopped renewing its claim: another instance takes the turn over within a lease (--lease-seconds); answer again then`,
    };
  try {
    const answered = await deps.relay.ask(
      turn.claimed_by,
      TURN_ANSWER_REQUEST,
      { taskId, answer },
      {
        timeoutMs: ANSWER_TIMEOUT_MS,
      },
    );
    return OutcomeSchema.parse(answered);
  } catch (error) {
    if (error instanceof InstanceUnreachable) return { answered: false, unreachable: error.message };
    throw error;
  }
}

/** Serves other instances' answers for the turns this one runs. */
export function serveTurnAnswers(relay: InstanceRelay, deps: AnswerDeps): void {
  const Body = z.object({ taskId: z.string().min(1), answer: AnswerTurnBodySchema });
  relay.handle(TURN_ANSWER_REQUEST, async (body) => {
    const { taskId, answer } = Body.parse(body);
    return answerHere(deps, taskId, answer);
  });
}
