// The task of an issue, shared by delegation (delegate.ts) and the webhooks (issue-events): starting one (same
// plan, queue and billing checks, one task per issue), a member's follow-up comment as the next turn (once per
// comment), and stopping its turn when the issue stops being the agent's. Plain functions over the store.
import { newId } from "../../primitives/tokens.js";
import { taskLock, workspaceSlotsLock } from "../../store/lock-keys.js";
import { domainError } from "../errors.js";
import type { TaskContext } from "../tasks/context.js";
import { checkStart } from "../tasks/decide.js";
import { newEntryId, stopTask } from "../tasks/engine.js";
import { refusalError } from "../tasks/start-task.js";
import {
  getTask,
  insertEntry,
  insertTask,
  slotCounts,
  type TaskRow,
  workspaceFacts,
} from "../tasks/task-store.js";
import { issuesWithTasks, TASK_SOURCE_OF } from "./ticket-store.js";

export type IssueSource = keyof typeof TASK_SOURCE_OF;

export interface IssueToStart {
  /** The platform's id of the issue (the task's `ticket_id`). */
  id: string;
  /** `ENG-12`, or `owner/name#7`. */
  identifier: string;
  title: string | null;
  context: string;
  repo: string | null;
  /** The code host's issue number (replies are posted to it); null for the tracker. */
  number: number | null;
}

export const issueInProgress = (identifier: string) =>
  domainError("ticket_in_progress", `${identifier} is already being worked on`);

/** The first message of an issue's task: "<identifier>: <title>", a blank line, the issue's text. */
export const firstIssueMessage = (issue: Pick<IssueToStart, "identifier" | "title" | "context">): string =>
  [`${issue.identifier}: ${issue.title ?? "(no title)"}`, issue.context].filter(Boolean).join("\n\n");

/**
 * Starts the issue's task as `userId`: refused (a DomainError) when the issue has a task, the code host is not
 * connected, billing is inactive or the queue is full. Runs the turns that started.
 */
export async function startIssueTask(
  ctx: TaskContext,
  input: {
    workspaceId: string;
    source: IssueSource;
    issue: IssueToStart;
    userId: string;
    /** The first message's id as callers see it (default: its entry id); a webhook's delivery names it. */
    messageKey?: string | undefined;
  },
): Promise<{ taskId: string }> {
  const { db } = ctx;
  const { workspaceId, source, issue } = input;
  const { taskId, started } = await ctx.commit(async () => {
    // Inside the write, under the workspace's slots lock (every instance): two starts of one issue make one task.
    await db.current()?.lock(workspaceSlotsLock(workspaceId));
    if ((await issuesWithTasks(db, workspaceId, source, [issue.id])).size > 0)
      throw issueInProgress(issue.identifier);
    const facts = (await workspaceFacts(db, workspaceId))!;
    const slots = await slotCounts(db, workspaceId);
    const check = checkStart({
      countsAgainstUserLimit: false,
      openTasksOfUser: 0,
      userLimit: 0,
      codehostConnected: facts.codehostConnected || source === "tracker",
      billingActive: facts.billingActive,
      plan: facts.plan,
      slots,
    });
    if (!check.ok) throw refusalError(ctx, workspaceId, check.refusal, { open: 0, plan: facts.plan, slots });
    const now = ctx.now();
    const taskId = newId("task");
    await insertTask(
      db,
      {
        id: taskId,
        workspace_id: workspaceId,
        source: TASK_SOURCE_OF[source],
        status: "pending",
        title: issue.title,
        repo: issue.repo,
        created_by: input.userId,
        ticket_id: issue.id,
      },
      now,
    );
    if (issue.number !== null)
      await db.run("UPDATE tasks SET ticket_number = ? WHERE id = ?", [issue.number, taskId]);
    const entryId = newEntryId("user");
    await insertEntry(
      db,
      {
        id: entryId,
        taskId,
        role: "user",
        kind: "message",
        body: firstIssueMessage(issue),
        messageId: input.messageKey ?? entryId,
        authorId: input.userId,
        handedOver: false,
      },
      now,
    );
    // While the service stops the message stays saved, not handed over: the next start hands it over.
    return { taskId, started: ctx.accepting() ? await ctx.handOver(db, taskId, now) : [] };
  });
  ctx.runTurns(started);
  return { taskId };
}

/** Whether the task's first message carries `key` (the task was started by that request or delivery). */
export async function startedWith(ctx: TaskContext, taskId: string, key: string): Promise<boolean> {
  const first = (await ctx.db.get(
    "SELECT message_id FROM task_messages WHERE task_id = ? ORDER BY seq LIMIT 1",
    [taskId],
  )) as { message_id: string | null } | undefined;
  return first?.message_id === key;
}

const DELIVERY_KEY_INFIX = "-delivery:";
/** A webhook delivery's key, which the first message of a task it starts carries. */
export const deliveryKey = (source: string, deliveryId: string): string =>
  `${source}${DELIVERY_KEY_INFIX}${deliveryId}`;

/** Whether a webhook (the agent's label or assignment) started the task, rather than a member's delegation. */
export async function startedByWebhook(ctx: TaskContext, taskId: string): Promise<boolean> {
  const first = (await ctx.db.get(
    "SELECT message_id FROM task_messages WHERE task_id = ? ORDER BY seq LIMIT 1",
    [taskId],
  )) as { message_id: string | null } | undefined;
  return first?.message_id?.includes(DELIVERY_KEY_INFIX) ?? false;
}

/** The task working on the issue, if any. */
export async function taskOfIssue(
  ctx: TaskContext,
  workspaceId: string,
  source: IssueSource,
  issueId: string,
): Promise<TaskRow | undefined> {
  const row = (await ctx.db.get(
    "SELECT id FROM tasks WHERE workspace_id = ? AND source = ? AND ticket_id = ?",
    [workspaceId, TASK_SOURCE_OF[source], issueId],
  )) as { id: string } | undefined;
  return row && getTask(ctx.db, row.id);
}

/**
 * A member's comment on the issue becomes a message of its task (the next turn, or joining the queued one), once
 * per `key` (the platform's comment id): a redelivered or re-applied comment adds nothing.
 */
export async function followUpIssueTask(
  ctx: TaskContext,
  input: { taskId: string; userId: string; text: string; key: string },
): Promise<{ added: boolean }> {
  const { db } = ctx;
  const { added, started } = await ctx.commit(async () => {
    // The task's lock before reading or writing its messages: the same comment applied on two instances adds one
    // message, and a stop or a turn's end holding it never waits on this write (see send-message.ts).
    await db.current()?.lock(taskLock(input.taskId));
    const seen = await db.get("SELECT 1 FROM task_messages WHERE task_id = ? AND message_id = ?", [
      input.taskId,
      input.key,
    ]);
    if (seen) return { added: false, started: [] as string[] };
    const now = ctx.now();
    await insertEntry(
      db,
      {
        id: newEntryId("user"),
        taskId: input.taskId,
        role: "user",
        kind: "message",
        body: input.text,
        messageId: input.key,
        authorId: input.userId,
        handedOver: false,
      },
      now,
    );
    return { added: true, started: ctx.accepting() ? await ctx.handOver(db, input.taskId, now) : [] };
  });
  ctx.runTurns(started);
  return { added };
}

/** Stops the task's queued or running turn (aborting a running one); false when it had neither. */
export async function stopIssueTask(ctx: TaskContext, taskId: string, byName: string): Promise<boolean> {
  const result = await ctx.commit(() => stopTask(ctx.db, taskId, byName, ctx.now()));
  if (!result.stopped) return false;
  if (result.wasRunning) ctx.abortTurn(result.turnId);
  else await ctx.taskStopped?.(taskId);
  ctx.runTurns(result.started);
  return true;
}
