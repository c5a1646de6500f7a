// POST /v1/workspaces/{id}/tasks: validate, replay or refuse by idempotency key, check the limits, save the task
// and its first message with the key's record, then hand it to the engine (reference section 4, "POST .../tasks").

import { newId } from "../../primitives/tokens.js";
import { workspaceSlotsLock } from "../../store/lock-keys.js";
import type { Store } from "../../store/store.js";
import type { User } from "../auth/users.js";
import { domainError } from "../errors.js";
import { LIMITS } from "../limits.js";
import type { TaskContext } from "./context.js";
import { checkStart } from "./decide.js";
import { newEntryId } from "./engine.js";
import { hashRequest, replayable, saveRecord, storeAnswer } from "./idempotency.js";
import {
  getTask,
  insertEntry,
  insertTask,
  openApiTasksOf,
  slotCounts,
  workspaceFacts,
} from "./task-store.js";
import { checkIdempotencyKey, checkPrompt, checkRepoShape, checkTitle } from "./validate.js";
import { type ApiTask, toApiTask } from "./views.js";

export interface StartTaskResponse {
  task: ApiTask;
  messageId: string;
}

export async function startTask(
  ctx: TaskContext,
  input: { workspaceId: string; user: User; body: unknown; idempotencyKey: string | null },
): Promise<StartTaskResponse> {
  const key = checkIdempotencyKey(input.idempotencyKey);
  const body = bodyObject(input.body);
  const prompt = checkPrompt(body.prompt, "prompt");
  const title = checkTitle(body.title, prompt);
  const repo = checkRepoShape(body.repo);
  const requestHash = hashRequest({
    op: "start",
    workspace: input.workspaceId,
    prompt,
    title: typeof body.title === "string" ? body.title : null,
    repo,
  });
  const { db } = ctx;
  return await saveAndHandOver(
    ctx,
    input.user.id,
    (task: ApiTask, messageId: string) => ({ task, messageId }),
    async () => {
      const earlier = key ? await replayable(db, input.user.id, key, requestHash) : undefined;
      if (earlier) return earlier;
      if (repo && !(await isConnected(ctx, input.workspaceId, repo)))
        throw domainError(
          "invalid_repo",
          `${repo} is not connected to this workspace; connect it or omit repo`,
        );
      // Counted and added under the workspace's lock: two starts on two instances would both find room.
      await db.current()?.lock(workspaceSlotsLock(input.workspaceId));
      await refuseIfLimited(ctx, input.workspaceId, input.user);
      const now = ctx.now();
      const taskId = newId("task");
      await insertTask(
        db,
        {
          id: taskId,
          workspace_id: input.workspaceId,
          source: "api",
          status: "pending",
          title,
          repo,
          created_by: input.user.id,
          ticket_id: null,
        },
        now,
      );
      return saveUserMessage(db, {
        taskId,
        text: prompt,
        key,
        userId: input.user.id,
        requestHash,
        now,
        newTask: true,
      });
    },
  );
}

type Saved = { taskId: string; messageId: string; response: unknown | null };

/** A JSON body's fields, or none when it is not an object (each field's check then names what is missing). */
export function bodyObject(body: unknown): Record<string, unknown> {
  return (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
}

/**
 * Saves a user's message (a start's prompt or a follow-up) with its idempotency record. The key, when given, is
 * the messageId; a keyless request is recorded under its generated messageId: the key a client retries a 503 with.
 */
export async function saveUserMessage(
  db: Store,
  input: {
    taskId: string;
    text: string;
    key: string | null;
    userId: string;
    requestHash: string;
    now: Date;
    /** The task was inserted at `now` in this transaction: its last activity is already `now`. */
    newTask?: boolean;
  },
): Promise<Saved> {
  const entryId = newEntryId("user");
  const messageId = input.key ?? entryId;
  await insertEntry(
    db,
    {
      id: entryId,
      taskId: input.taskId,
      role: "user",
      kind: "message",
      body: input.text,
      messageId,
      authorId: input.userId,
      handedOver: false,
    },
    input.now,
    { touchTask: !input.newTask },
  );
  await saveRecord(
    db,
    input.userId,
    messageId,
    { requestHash: input.requestHash, taskId: input.taskId, messageId, messageEntryId: entryId },
    input.now,
  );
  return { taskId: input.taskId, messageId, response: null };
}

/**
 * A start or a send in one transaction: `save` finds the earlier request with the same key or saves this one,
 * then the hand-over runs in a savepoint, so that if it fails the saved request still commits and the answer is
 * 503 `unavailable` naming it (a retry with the key, or the messageId, hands it over). The answer is stored
 * with the key's record before the commit: a crash between saving and answering leaves the first result.
 */
export async function saveAndHandOver<T>(
  ctx: TaskContext,
  userId: string,
  answer: (task: ApiTask, messageId: string) => T,
  save: () => Promise<Saved>,
  unavailableFields: (saved: Saved) => { taskId?: string; messageId: string } = (s) => ({
    taskId: s.taskId,
    messageId: s.messageId,
  }),
): Promise<T> {
  const { db } = ctx;
  const outcome = await ctx.commit(async () => {
    const saved = await save();
    if (saved.response !== null)
      return { kind: "answered" as const, response: saved.response as T, started: [] as string[] };
    if (!ctx.accepting())
      return { kind: "saved" as const, saved, cause: new Error("the service is stopping") };
    await db.run("SAVEPOINT hand_over");
    try {
      const now = ctx.now();
      const started = await ctx.handOver(db, saved.taskId, now);
      const response = answer(
        toApiTask((await getTask(db, saved.taskId))!, ctx.dashboardBase()),
        saved.messageId,
      );
      await storeAnswer(db, userId, saved.messageId, response);
      await db.run("RELEASE hand_over");
      return { kind: "answered" as const, response, started };
    } catch (cause) {
      await db.run("ROLLBACK TO hand_over");
      await db.run("RELEASE hand_over");
      return { kind: "saved" as const, saved, cause };
    }
  });
  if (outcome.kind === "saved")
    throw Object.assign(
      domainError(
        "unavailable",
        "the request is saved but could not be handed to the agent yet; retry with the same Idempotency-Key",
        unavailableFields(outcome.saved),
      ),
      { cause: outcome.cause },
    );
  ctx.runTurns(outcome.started);
  return outcome.response;
}

async function isConnected(ctx: TaskContext, workspaceId: string, repo: string): Promise<boolean> {
  return (
    (await ctx.db.get("SELECT 1 FROM repositories WHERE workspace_id = ? AND slug = ? AND connected = 1", [
      workspaceId,
      repo,
    ])) !== undefined
  );
}

async function refuseIfLimited(ctx: TaskContext, workspaceId: string, user: User): Promise<void> {
  const facts = (await workspaceFacts(ctx.db, workspaceId))!;
  const slots = await slotCounts(ctx.db, workspaceId);
  const open = await openApiTasksOf(ctx.db, workspaceId, user.id);
  const check = checkStart({
    countsAgainstUserLimit: true,
    openTasksOfUser: open,
    userLimit: LIMITS.runningTasksPerUser,
    codehostConnected: facts.codehostConnected,
    billingActive: facts.billingActive,
    plan: facts.plan,
    slots,
  });
  if (check.ok) return;
  throw refusalError(ctx, workspaceId, check.refusal, { open, plan: facts.plan, slots });
}

export function refusalError(
  ctx: TaskContext,
  workspaceId: string,
  refusal:
    | "too_many_running"
    | "codehost_not_connected"
    | "tracker_not_connected"
    | "billing_inactive"
    | "queue_full",
  facts: {
    open: number;
    plan: { name: string; concurrency: number; queueSize: number };
    slots: { running: number; queued: number };
  },
) {
  const base = `${ctx.dashboardBase()}/workspaces/${encodeURIComponent(workspaceId)}`;
  switch (refusal) {
    case "too_many_running":
      return domainError(
        "too_many_running",
        // Said the same to every surface (the dashboard's user never used "the API, client or MCP"): the count is
        // of the caller's own tasks, wherever they started them; tasks from issues do not count.
        `you already have ${facts.open} tasks of your own starting, running or queued here (the limit is ${LIMITS.runningTasksPerUser}; tasks from issues do not count); wait for one to finish or stop one`,
        { limit: LIMITS.runningTasksPerUser, running: facts.open },
      );
    case "codehost_not_connected":
      return domainError(
        "codehost_not_connected",
        "the workspace is not connected to the code host; an owner connects it in settings",
        {
          settingsUrl: `${base}/settings`,
        },
      );
    case "tracker_not_connected":
      return domainError(
        "tracker_not_connected",
        "the workspace is not connected to the tracker; an owner connects it in settings",
        { settingsUrl: `${base}/settings` },
      );
    case "billing_inactive":
      return domainError(
        "billing_inactive",
        "billing is inactive for this workspace; an owner reactivates it in billing",
        {
          billingUrl: `${base}/billing`,
          plan: facts.plan.name,
        },
      );
    case "queue_full":
      return domainError(
        "queue_full",
        `the workspace queue is full (plan ${facts.plan.name}: ${facts.slots.running} running, ${facts.slots.queued} of ${facts.plan.queueSize} queued); retry when a task finishes`,
        { plan: facts.plan.name, running: facts.slots.running, queued: facts.slots.queued },
      );
  }
}
