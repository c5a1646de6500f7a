// The task engine applied to the store: hand-over of saved messages, turn begin and end, stop, promotion from
// the queue, and recovery after a restart. Every function runs inside the caller's transaction and returns the
// ids of turns that became `running`, which the runtime then executes.
import type { ActivityRecord } from "../../adapters/agents/port.js";
import { newId } from "../../primitives/tokens.js";
import { taskLock } from "../../store/lock-keys.js";
import type { Store } from "../../store/store.js";
import { WAKE_CHANNELS } from "../../store/wake-channels.js";
import { boundActivity } from "./activity-bound.js";
import { insertTurnActivity } from "./activity-store.js";
import { canStop, endTurn, placeMessage, recoverTurn, type TurnOutcome, turnsToStart } from "./decide.js";
import { queueIssuePost } from "./issue-post-queue.js";
import { NOTICES } from "./notices.js";
import { nextStatus } from "./statuses.js";
import {
  attachWaitingMessages,
  type EntryKind,
  type EntryRole,
  type EntryRow,
  endTurnRow,
  getTask,
  getTurn,
  handOverEntry,
  insertEntry,
  insertTurn,
  oldestQueuedTurns,
  setPullRequest,
  setTaskState,
  slotCounts,
  startQueuedTurn,
  type TaskRow,
  unhandedMessages,
  waitingMessages,
  workspaceFacts,
} from "./task-store.js";
import { claimableRunningTurns, mayClaimTurn, type TurnClaim } from "./turn-claims.js";

export const ENTRY_PREFIX: Record<EntryRole, string> = { user: "msg", agent: "agt", platform: "plt" };
export const newEntryId = (role: EntryRole): string => newId(ENTRY_PREFIX[role]);

async function addEntry(
  db: Store,
  taskId: string,
  entry: { role: EntryRole; kind: EntryKind; body: string },
  now: Date,
): Promise<string> {
  const id = newEntryId(entry.role);
  await insertEntry(db, { id, taskId, ...entry }, now);
  // A task of an issue says on the issue what the agent and the service said: queued in this same transaction.
  await queueIssuePost(db, taskId, id);
  return id;
}

/** Hands every saved message of the task to the engine, oldest first. */
export async function handOverTask(db: Store, taskId: string, now: Date): Promise<string[]> {
  // Against a turn's begin, end or stop on any instance. A start takes the workspace's slots lock first, out of
  // lock-keys.ts's order, but its task is new in that transaction: no one else can be waiting for this key.
  await db.current()?.lock(taskLock(taskId));
  const started: string[] = [];
  for (const entry of await unhandedMessages(db, taskId))
    started.push(...(await handOverOne(db, taskId, entry, now)));
  return started;
}

async function handOverOne(db: Store, taskId: string, entry: EntryRow, now: Date): Promise<string[]> {
  const task = (await getTask(db, taskId))!;
  const facts = (await workspaceFacts(db, task.workspace_id))!;
  const slots = await slotCounts(db, task.workspace_id);
  const placement = placeMessage(task.open_turn_state, facts.plan, slots);
  switch (placement.kind) {
    case "join_queued_turn":
      await handOverEntry(db, entry.id, task.open_turn_id);
      return [];
    case "wait_for_turn":
      await handOverEntry(db, entry.id, null);
      return [];
    case "open_turn": {
      const turnId = await openTurn(db, task, placement.queued, now);
      await handOverEntry(db, entry.id, turnId);
      return placement.queued ? [] : [turnId];
    }
    case "refuse_queue_full": {
      const turnId = await refuseTurn(db, task, facts.plan, slots, now);
      await handOverEntry(db, entry.id, turnId);
      return [];
    }
  }
}

async function openTurn(db: Store, task: TaskRow, queued: boolean, now: Date): Promise<string> {
  const turnId = newId("turn");
  await insertTurn(
    db,
    {
      id: turnId,
      taskId: task.id,
      workspaceId: task.workspace_id,
      state: queued ? "queued" : "running",
      waited: queued,
    },
    now,
  );
  // A task saved moments ago is already `pending` with no turn; an idle task resumes.
  const status = task.status === "pending" ? "pending" : nextStatus(task.status, "turn_opened");
  await setTaskState(db, task.id, { status, pausedOn: null, openTurnId: turnId }, now);
  return turnId;
}

async function refuseTurn(
  db: Store,
  task: TaskRow,
  plan: Parameters<typeof NOTICES.queueFull>[0],
  slots: Parameters<typeof NOTICES.queueFull>[1],
  now: Date,
): Promise<string> {
  const turnId = newId("turn");
  await insertTurn(
    db,
    { id: turnId, taskId: task.id, workspaceId: task.workspace_id, state: "refused", waited: false },
    now,
  );
  const closing = await addEntry(
    db,
    task.id,
    { role: "platform", kind: "error", body: NOTICES.queueFull(plan, slots) },
    now,
  );
  await endTurnRow(db, turnId, "refused", closing, "queue_full", now);
  // A task whose first turn never started has nothing to wait for: it fails rather than stay `pending`.
  if (task.status === "pending" && task.open_turn_id === null)
    await setTaskState(
      db,
      task.id,
      { status: nextStatus("pending", "turn_failed"), pausedOn: null, openTurnId: null },
      now,
    );
  return turnId;
}

/** Starts the oldest queued turns of the workspace while plan slots are free. */
export async function promote(db: Store, workspaceId: string): Promise<string[]> {
  const facts = (await workspaceFacts(db, workspaceId))!;
  const turns = await oldestQueuedTurns(
    db,
    workspaceId,
    turnsToStart(facts.plan, await slotCounts(db, workspaceId)),
  );
  for (const turn of turns) await startQueuedTurn(db, turn.id);
  return turns.map((t) => t.id);
}

export type BeginResult<T = undefined> =
  | { kind: "run"; attempt: number; task: TaskRow; prepared: T }
  | { kind: "gone" }
  | { kind: "paused"; started: string[] };

/**
 * The agent starts (or, after a crash, restarts) a running turn. Billing is checked here. `prepare` runs in the
 * same transaction for a turn that begins (the runtime issues the sandbox's credentials there). With `claim`, the
 * turn begins only when no other instance holds it (turn-claims.ts), and begins under that claim; otherwise it
 * is `gone` for this caller.
 */
export async function beginTurn<T = undefined>(
  db: Store,
  turnId: string,
  now: Date,
  prepare?: (task: TaskRow) => Promise<T>,
  claim?: TurnClaim,
): Promise<BeginResult<T>> {
  const first = await getTurn(db, turnId);
  if (first?.state !== "running") return { kind: "gone" };
  // Against another instance's begin, end or stop of the same turn.
  await db.current()?.lock(taskLock(first.task_id));
  const turn = await getTurn(db, turnId);
  if (turn?.state !== "running") return { kind: "gone" };
  if (claim && !mayClaimTurn(turn, claim.owner, now.getTime())) return { kind: "gone" };
  const task = (await getTask(db, turn.task_id))!;
  if (!(await workspaceFacts(db, task.workspace_id))!.billingActive) {
    const started = await closeTurn(db, task, turnId, {
      outcome: { kind: "billing_stopped" },
      closing: { role: "platform", kind: "error", body: NOTICES.billingPaused() },
      code: "billing_inactive",
      now,
    });
    return { kind: "paused", started };
  }
  const attempt = turn.attempts + 1;
  await db.run(
    `UPDATE task_turns SET attempts = ?, started_at = coalesce(started_at, ?), claimed_by = ?, lease_until_ms = ?
     WHERE id = ?`,
    [attempt, now.toISOString(), claim?.owner ?? null, claim ? now.getTime() + claim.leaseMs : null, turnId],
  );
  await setTaskState(
    db,
    task.id,
    { status: nextStatus(task.status, "turn_began"), pausedOn: null, openTurnId: turnId },
    now,
  );
  const begun = (await getTask(db, task.id))!;
  return { kind: "run", attempt, task: begun, prepared: (await prepare?.(begun)) as T };
}

/**
 * Another instance's running turn whose lease ran out (or one nobody began): fails it `interrupted` when it was
 * interrupted too often, as a restart does (recover), or leaves it to be begun again. Returns the turns to run:
 * this one when it reruns, or the turns its failure let start.
 */
export async function takeOverTurn(db: Store, turnId: string, owner: string, now: Date): Promise<string[]> {
  const first = await getTurn(db, turnId);
  if (first?.state !== "running") return [];
  await db.current()?.lock(taskLock(first.task_id));
  const turn = await getTurn(db, turnId);
  if (turn?.state !== "running" || !mayClaimTurn(turn, owner, now.getTime())) return [];
  if (recoverTurn(turn.attempts) === "rerun") return [turnId];
  return failInterrupted(db, turn, now);
}

async function failInterrupted(
  db: Store,
  turn: { id: string; task_id: string; attempts: number },
  now: Date,
): Promise<string[]> {
  return closeTurn(db, (await getTask(db, turn.task_id))!, turn.id, {
    outcome: { kind: "error", code: "interrupted" },
    closing: { role: "platform", kind: "error", body: NOTICES.interrupted(turn.attempts) },
    code: "interrupted",
    now,
  });
}

/** What the runtime learned from the agent port, already sanitised, with the pull request already opened. */
export type TurnFinish = (
  | {
      kind: "reply";
      reply: { kind: "response" | "clarify"; body: string };
      files: readonly string[];
      pullRequest: { repo: string; number: number; url: string; branch: string; merged: boolean } | null;
    }
  | { kind: "error"; code: string; reason: string }
  | { kind: "needs_access"; reason: string }
) & {
  /** What the agent did in the turn (sanitised by its adapter): kept beside the turn, never in the conversation. */
  activity?: readonly ActivityRecord[] | undefined;
};

/**
 * Records the end of a turn, and what the agent did in it. A result for a turn that is no longer running in this
 * attempt (stopped, or rerun after a restart) is dropped: `stale: true`; of a turn a member stopped during this
 * very attempt, the activity is still kept (what the agent did before the stop), and nothing else.
 */
export async function finishTurn(
  db: Store,
  turnId: string,
  attempt: number,
  finish: TurnFinish,
  now: Date,
): Promise<{ stale: boolean; started: string[] }> {
  const first = await getTurn(db, turnId);
  if (first?.state !== "running" && first?.state !== "cancelled") return { stale: true, started: [] };
  // Against another instance's stop, takeover or begin of the same turn: the attempt read below is the last.
  await db.current()?.lock(taskLock(first.task_id));
  const turn = await getTurn(db, turnId);
  if (turn?.attempts !== attempt || (turn.state !== "running" && turn.state !== "cancelled"))
    return { stale: true, started: [] };
  await keepActivity(db, turn, finish.activity, now);
  if (turn.state === "cancelled") return { stale: true, started: [] };
  const task = (await getTask(db, turn.task_id))!;
  if (finish.kind === "reply") {
    if (finish.pullRequest) await setPullRequest(db, task.id, finish.pullRequest);
    const prOpen = finish.pullRequest
      ? !finish.pullRequest.merged
      : task.pr_url !== null && task.pr_merged === 0 && task.pr_closed === 0;
    const after =
      finish.files.length > 0
        ? [
            {
              role: "platform" as const,
              kind: "response" as const,
              body: NOTICES.filesProduced(finish.files),
            },
          ]
        : [];
    return {
      stale: false,
      started: await closeTurn(db, task, turnId, {
        outcome: { kind: "reply", replyKind: finish.reply.kind, pullRequestOpen: prOpen },
        closing: { role: "agent", kind: finish.reply.kind, body: finish.reply.body },
        after,
        code: null,
        now,
      }),
    };
  }
  if (finish.kind === "needs_access") {
    return {
      stale: false,
      started: await closeTurn(db, task, turnId, {
        outcome: { kind: "needs_access" },
        closing: { role: "platform", kind: "error", body: NOTICES.accessPaused(finish.reason) },
        code: "needs_access",
        now,
      }),
    };
  }
  return {
    stale: false,
    started: await closeTurn(db, task, turnId, {
      outcome: { kind: "error", code: finish.code },
      closing: { role: "platform", kind: "error", body: NOTICES.agentFailed(finish.reason) },
      code: finish.code,
      now,
    }),
  };
}

async function keepActivity(
  db: Store,
  turn: { id: string; task_id: string; seq: number },
  activity: readonly ActivityRecord[] | undefined,
  now: Date,
): Promise<void> {
  const kept = boundActivity(activity ?? []);
  if (kept) await insertTurnActivity(db, { id: turn.id, taskId: turn.task_id, seq: turn.seq }, kept, now);
}

interface Closing {
  outcome: TurnOutcome;
  closing: { role: EntryRole; kind: EntryKind; body: string };
  after?: { role: EntryRole; kind: EntryKind; body: string }[];
  code: string | null;
  now: Date;
}

/** Ends the task's open turn, then lets waiting messages and queued turns move. */
async function closeTurn(db: Store, task: TaskRow, turnId: string, c: Closing): Promise<string[]> {
  const end = endTurn(c.outcome);
  const closingId = await addEntry(db, task.id, c.closing, c.now);
  for (const entry of c.after ?? []) await addEntry(db, task.id, entry, c.now);
  await endTurnRow(db, turnId, end.turnState, closingId, c.code, c.now);
  await setTaskState(
    db,
    task.id,
    { status: nextStatus(task.status, end.event), pausedOn: end.pausedOn, openTurnId: null },
    c.now,
  );
  return afterTurnEnded(db, task.id, task.workspace_id, c.now);
}

/** A slot or queue place was freed: start queued turns, then turn the task's waiting messages into its next turn. */
async function afterTurnEnded(db: Store, taskId: string, workspaceId: string, now: Date): Promise<string[]> {
  const started = await promote(db, workspaceId);
  if ((await waitingMessages(db, taskId)).length === 0) return started;
  const task = (await getTask(db, taskId))!;
  const facts = (await workspaceFacts(db, workspaceId))!;
  const slots = await slotCounts(db, workspaceId);
  const placement = placeMessage(null, facts.plan, slots);
  if (placement.kind === "open_turn") {
    const turnId = await openTurn(db, task, placement.queued, now);
    await attachWaitingMessages(db, taskId, turnId);
    if (!placement.queued) started.push(turnId);
  } else {
    await attachWaitingMessages(db, taskId, await refuseTurn(db, task, facts.plan, slots, now));
  }
  return started;
}

export type StopResult =
  | { stopped: false }
  | { stopped: true; turnId: string; wasRunning: boolean; started: string[] };

/** Stops the task's queued or running turn: a `cancelled` turn and a platform message naming who stopped it. */
export async function stopTask(db: Store, taskId: string, byName: string, now: Date): Promise<StopResult> {
  // Simultaneous stops (on any instance) read the turn one after another: one stops it, the others find it ended.
  await db.current()?.lock(taskLock(taskId));
  const task = await getTask(db, taskId);
  if (!task || !canStop(task.open_turn_state) || task.open_turn_id === null) return { stopped: false };
  const turnId = task.open_turn_id;
  const wasRunning = task.open_turn_state === "running";
  const notRun = (await waitingMessages(db, taskId)).length;
  const closing = await addEntry(
    db,
    taskId,
    { role: "platform", kind: "response", body: NOTICES.stopped(byName, notRun) },
    now,
  );
  await endTurnRow(db, turnId, "cancelled", closing, "stopped", now);
  // Messages that waited for this turn are answered by the stop notice: they belong to the cancelled turn.
  await attachWaitingMessages(db, taskId, turnId);
  await setTaskState(
    db,
    taskId,
    { status: nextStatus(task.status, "stopped"), pausedOn: null, openTurnId: null },
    now,
  );
  // The instance running the turn (this one or another) aborts it once the stop commits.
  if (wasRunning) db.current()?.notify(WAKE_CHANNELS.turnStops, turnId);
  return { stopped: true, turnId, wasRunning, started: await promote(db, task.workspace_id) };
}

/** The code host merged the task's pull request. */
export async function markPullRequestMerged(db: Store, taskId: string, now: Date): Promise<void> {
  const task = await getTask(db, taskId);
  if (!task || task.pr_merged === 1) return;
  await db.run("UPDATE tasks SET pr_merged = 1 WHERE id = ?", [taskId]);
  if (task.status === "pr_open")
    await setTaskState(
      db,
      taskId,
      { status: nextStatus("pr_open", "pull_request_merged"), pausedOn: null, openTurnId: null },
      now,
    );
}

/** The code host closed the task's pull request without merging it (it stays `merged: false`). */
export async function markPullRequestClosed(db: Store, taskId: string, now: Date): Promise<void> {
  const task = await getTask(db, taskId);
  if (!task || task.pr_merged === 1 || task.pr_closed === 1) return;
  await db.run("UPDATE tasks SET pr_closed = 1 WHERE id = ?", [taskId]);
  if (task.status === "pr_open")
    await setTaskState(
      db,
      taskId,
      { status: nextStatus("pr_open", "pull_request_closed"), pausedOn: null, openTurnId: null },
      now,
    );
}

/**
 * After a restart: hand over what was saved but not handed over, fail turns interrupted too often (a platform
 * error), open the next turn where messages wait, start queued turns, and return every running turn. With
 * `owner` (several instances may share the store), only the running turns no other instance holds are failed or
 * returned: a live instance's turns stay its own.
 */
export async function recover(db: Store, now: Date, owner?: string): Promise<string[]> {
  for (const { task_id } of (await db.all(
    "SELECT DISTINCT task_id FROM task_messages WHERE handed_over = 0",
  )) as {
    task_id: string;
  }[])
    await handOverTask(db, task_id, now);
  for (const turn of await claimableRunningTurns(db, owner, now.getTime())) {
    if (recoverTurn(turn.attempts) === "rerun") continue;
    await failInterrupted(db, turn, now);
  }
  for (const {
    id,
    workspace_id,
  } of (await db.all(`SELECT DISTINCT t.id, t.workspace_id FROM tasks t JOIN task_messages m ON m.task_id = t.id
     WHERE m.handed_over = 1 AND m.turn_id IS NULL AND t.open_turn_id IS NULL`)) as {
    id: string;
    workspace_id: string;
  }[])
    await afterTurnEnded(db, id, workspace_id, now);
  for (const { id } of (await db.all("SELECT id FROM workspaces")) as { id: string }[]) await promote(db, id);
  return (await claimableRunningTurns(db, owner, now.getTime())).map((t) => t.id);
}
