// Rendering a whole task page or new-task form for a request (shared by the GET routes and by a refused form,
// which comes back with its reason and what was typed).
import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { tasksAwaitingAnswer } from "../../../domain/tasks/awaiting-answer.js";
import { listLatestActivity } from "../../../domain/tasks/read-activity.js";
import { readTask } from "../../../domain/tasks/read-tasks.js";
import { enabledReposOf } from "../../../domain/tickets/ticket-store.js";
import type { PagesDeps } from "../deps.js";
import type { PagesEnv } from "../env.js";
import { requireWorkspace, type WorkspaceAccess } from "./access.js";
import { renderDashboardPage } from "./frame.js";
import { pageErrorOf, queuePlacesOf, readConversationWindow } from "./load-task.js";
import { type NewTaskView, renderNewTask } from "./render-new-task.js";
import { renderTaskPage, type TaskPageView } from "./render-task-page.js";
import { NoticeSchema, noticeWords } from "./task-wire.js";

type PageContext = Context<PagesEnv>;

/** Turns of activity a task page shows (the latest); the API pages through all of them. */
export const ACTIVITY_TURNS_SHOWN = 10;

export const frameOf = (c: PageContext, access: WorkspaceAccess) => ({
  user: c.get("webUser"),
  csrfToken: c.get("csrfToken"),
  access,
});

/** Runs a domain read, answering its refusal as a page error (404 for another workspace's task). */
export async function guard<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw pageErrorOf(error);
  }
}

export async function showTaskPage(
  c: PageContext,
  deps: PagesDeps,
  extra: Partial<Pick<TaskPageView, "error" | "followUpText" | "followUpKey">> = {},
  status = 200,
) {
  const access = await requireWorkspace(deps, c, c.req.param("ws") ?? "");
  const ws = access.membership.workspaceId;
  const ctx = deps.tasks.context;
  const task = await guard(() => readTask(ctx, ws, c.req.param("task") ?? ""));
  const notice = NoticeSchema.safeParse(c.req.query("notice"));
  const body = renderTaskPage({
    workspaceId: ws,
    task,
    place: (await queuePlacesOf(ctx, ws)).get(task.id),
    awaitingAnswer: (await tasksAwaitingAnswer(ctx.db, [task])).has(task.id),
    conversation: await readConversationWindow(ctx, ws, task.id, c.req.query("before") || null),
    activity: await guard(() => listLatestActivity(ctx, ws, task.id, ACTIVITY_TURNS_SHOWN)),
    csrfToken: c.get("csrfToken"),
    followUpKey: randomUUID(),
    notice: notice.success && !extra.error ? noticeWords(notice.data, task) : undefined,
    ...extra,
  });
  const title = task.title ?? "Task";
  return c.html(renderDashboardPage({ ...frameOf(c, access), title, section: "tasks", body }), status as 200);
}

export async function showNewTask(
  c: PageContext,
  deps: PagesDeps,
  form: Omit<NewTaskView, "workspaceId" | "csrfToken" | "repos">,
  status = 200,
) {
  const access = await requireWorkspace(deps, c, c.req.param("ws") ?? "");
  const ws = access.membership.workspaceId;
  const body = renderNewTask({
    workspaceId: ws,
    csrfToken: c.get("csrfToken"),
    repos: [...(await enabledReposOf(deps.db, ws))].sort(),
    ...form,
  });
  return c.html(
    renderDashboardPage({ ...frameOf(c, access), title: "New task", section: "new-task", body }),
    status as 200,
  );
}
