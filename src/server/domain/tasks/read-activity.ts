// GET .../tasks/{taskId}/activity (ours, an addition to the reference) and the dashboard's "What the agent did":
// the turns that recorded activity, in the turns' order, each with its records. Any member of the task's
// workspace reads it, whatever the task's source (an issue's task keeps its conversation on the issue, but its
// activity is nowhere else). A page holds `limit` turns, fewer once their records pass the page's budget.
import type { ActivityRecord } from "../../adapters/agents/port.js";
import { domainError } from "../errors.js";
import { LIMITS } from "../limits.js";
import {
  type ActivityTurnRow,
  activityRecordsOf,
  activityTurnSeq,
  activityTurns,
  latestActivityTurns,
} from "./activity-store.js";
import type { TaskContext } from "./context.js";
import { requireTask } from "./send-message.js";
import { checkLimit } from "./validate.js";
import { type ApiActivityTurn, toApiActivityTurn } from "./views.js";

export async function listActivity(
  ctx: TaskContext,
  workspaceId: string,
  taskId: string,
  query: { after?: string | null; limit?: string | null },
): Promise<{ turns: ApiActivityTurn[]; next: string | null }> {
  await requireTask(ctx, workspaceId, taskId);
  const limit = checkLimit(query.limit, LIMITS.activityPage);
  let afterSeq = 0;
  if (query.after !== null && query.after !== undefined) {
    const seq = await activityTurnSeq(ctx.db, taskId, query.after);
    if (seq === undefined)
      throw domainError(
        "invalid_cursor",
        "after is not a turn of this task with activity; pass the turnId of the last turn you read",
      );
    afterSeq = seq;
  }
  const rows = await activityTurns(ctx.db, taskId, afterSeq, limit + 1);
  const page = [];
  let chars = 0;
  for (const row of rows.slice(0, limit)) {
    if (page.length > 0 && chars + Number(row.chars) > LIMITS.activityPageMaxChars) break;
    chars += Number(row.chars);
    page.push(row);
  }
  return {
    turns: await withRecords(ctx, page),
    next: rows.length > page.length ? page.at(-1)!.turn_id : null,
  };
}

/** The dashboard's view: the latest `turns` turns with activity, and how many earlier ones it leaves out. */
export async function listLatestActivity(
  ctx: TaskContext,
  workspaceId: string,
  taskId: string,
  turns: number,
): Promise<{ turns: ApiActivityTurn[]; earlier: number }> {
  await requireTask(ctx, workspaceId, taskId);
  const latest = await latestActivityTurns(ctx.db, taskId, turns);
  return { turns: await withRecords(ctx, latest.turns), earlier: latest.earlier };
}

async function withRecords(ctx: TaskContext, rows: readonly ActivityTurnRow[]): Promise<ApiActivityTurn[]> {
  const records = await activityRecordsOf(
    ctx.db,
    rows.map((row) => row.turn_id),
  );
  return rows.map((row) =>
    toApiActivityTurn(row, JSON.parse(records.get(row.turn_id) ?? "[]") as ActivityRecord[]),
  );
}
