// The task pages' reading routes: GET /dashboard (to the first workspace's tasks), the task list, a task's page
// and its polling answer. Each checks membership first (another workspace's task is 404, like the API) and reads
// through the API's functions. addTaskPages is the group's one registration (app.ts).
import { z } from "zod";
import { membershipsOf } from "../../../domain/auth/users.js";
import { tasksAwaitingAnswer } from "../../../domain/tasks/awaiting-answer.js";
import { listTasks, readTask } from "../../../domain/tasks/read-tasks.js";
import { TASK_STATUSES } from "../../../domain/tasks/statuses.js";
import type { PagesDeps } from "../deps.js";
import { html } from "../html.js";
import { renderPage } from "../layout.js";
import { requireWorkspace } from "./access.js";
import type { DashboardApp } from "./app.js";
import { renderDashboardPage } from "./frame.js";
import { queuePlacesOf, readConversation } from "./load-task.js";
import { renderEntries } from "./render-entries.js";
import { renderStatus } from "./render-status.js";
import { renderTaskList } from "./render-task-list.js";
import { renderPullRequest, renderStop } from "./render-task-page.js";
import { serveDashboardScript } from "./script.js";
import { frameOf, guard, showTaskPage } from "./show-pages.js";
import { addTaskForms } from "./task-forms.js";
import { TASK_ROUTES } from "./task-wire.js";
import { renderTime } from "./time.js";
import { DASHBOARD_HOME, DASHBOARD_SCRIPT_PATH, tasksPath } from "./wire.js";

const ListQuerySchema = z.object({
  status: z.enum(TASK_STATUSES).or(z.literal("")).optional(),
  after: z.string().max(512).optional(),
});

export function addTaskPages(app: DashboardApp, deps: PagesDeps): void {
  app.get(DASHBOARD_SCRIPT_PATH, serveDashboardScript);
  app.get(DASHBOARD_HOME, async (c) => {
    const first = (await membershipsOf(deps.db, c.get("webUser")))[0];
    if (first) return c.redirect(tasksPath(first.workspaceId), 303);
    return c.html(
      renderPage({
        title: "No workspace yet",
        user: c.get("webUser"),
        csrfToken: c.get("csrfToken"),
        body: html`<p>You are signed in but not a member of any workspace. Ask a workspace's owner or admin to invite ${c.get("webUser").email}, then open this page again.</p>`,
      }),
    );
  });
  addTaskForms(app, deps);
  app.get(TASK_ROUTES.tasks, async (c) => {
    const access = await requireWorkspace(deps, c, c.req.param("ws"));
    const ws = access.membership.workspaceId;
    const query = ListQuerySchema.safeParse(c.req.query());
    const status = query.success && query.data.status ? query.data.status : null;
    const after = query.success ? (query.data.after ?? null) : null;
    const ctx = deps.tasks.context;
    const page = await guard(() => listTasks(ctx, ws, { status, cursor: after }));
    const body = renderTaskList({
      workspaceId: ws,
      tasks: page.tasks,
      places: await queuePlacesOf(ctx, ws),
      awaitingAnswer: await tasksAwaitingAnswer(ctx.db, page.tasks),
      status,
      nextCursor: page.nextCursor,
      paged: after !== null,
    });
    return c.html(renderDashboardPage({ ...frameOf(c, access), title: "Tasks", section: "tasks", body }));
  });
  app.get(TASK_ROUTES.task, (c) => showTaskPage(c, deps));
  app.get(TASK_ROUTES.updates, async (c) => {
    const access = await requireWorkspace(deps, c, c.req.param("ws"));
    const ws = access.membership.workspaceId;
    const ctx = deps.tasks.context;
    const task = await guard(() => readTask(ctx, ws, c.req.param("task")));
    const conversation = await readConversation(ctx, ws, task.id, c.req.query("after") ?? null);
    const entries = "entries" in conversation ? conversation.entries : [];
    return c.json({
      entries: renderEntries(entries).toString(),
      last: entries.at(-1)?.id ?? null,
      status: renderStatus(
        task,
        (await queuePlacesOf(ctx, ws)).get(task.id),
        (await tasksAwaitingAnswer(ctx.db, [task])).has(task.id),
      ).toString(),
      pullRequest: renderPullRequest(task).toString(),
      lastActivity: renderTime(task.lastActivityAt).toString(),
      actions: renderStop({ workspaceId: ws, task, csrfToken: c.get("csrfToken") }).toString(),
    });
  });
}
