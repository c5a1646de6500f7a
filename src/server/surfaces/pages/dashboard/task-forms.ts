// The task pages' forms: start a task (GET the form, POST tasksPath), follow up and stop. Each POST passes the
// body limit and the CSRF check first, then calls the API's own function with the form's idempotency key, so a
// double submit starts or sends once. A refusal comes back on the form with its reason as written and what was
// typed kept.
import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { AUDIT_EVENTS, logAuditEvent } from "../../../../audit/events.js";
import { WIRE_ERRORS } from "../../../../transport/wire.js";
import { DomainError } from "../../../domain/errors.js";
import { sendMessage } from "../../../domain/tasks/send-message.js";
import { startTask } from "../../../domain/tasks/start-task.js";
import { stopTaskTurn } from "../../../domain/tasks/stop.js";
import { apiErrorOf } from "../../api/errors.js";
import { HttpError } from "../../http/http-error.js";
import type { PagesDeps } from "../deps.js";
import type { PagesEnv } from "../env.js";
import { verifyCsrf } from "../session.js";
import { requireWorkspace } from "./access.js";
import type { DashboardApp } from "./app.js";
import { pageErrorOf } from "./load-task.js";
import { TASK_FORM_FIELDS as F } from "./render-task-page.js";
import { showNewTask, showTaskPage } from "./show-pages.js";
import { TASK_FORM_MAX_BYTES, TASK_ROUTES } from "./task-wire.js";
import { billingPath, settingsPath, taskPath } from "./wire.js";

const str = z.string().optional();
const FormSchema = z.object({ [F.prompt]: str, [F.title]: str, [F.repo]: str, [F.text]: str, [F.key]: str });
const readForm = async (c: Context<PagesEnv>) => {
  const parsed = FormSchema.safeParse(await c.req.parseBody());
  return parsed.success ? parsed.data : {};
};

export function addTaskForms(app: DashboardApp, deps: PagesDeps): void {
  const guards = [
    bodyLimit({ maxSize: TASK_FORM_MAX_BYTES, onError: () => tooLarge() }),
    verifyCsrf({ thrown: true }),
  ] as const;
  const ctx = () => deps.tasks.context;

  app.get(TASK_ROUTES.newTask, (c) => showNewTask(c, deps, { key: randomUUID() }));

  app.post(TASK_ROUTES.tasks, ...guards, async (c) => {
    const access = await requireWorkspace(deps, c, c.req.param("ws"));
    const ws = access.membership.workspaceId;
    const form = await readForm(c);
    const user = c.get("webUser");
    const typed = { key: form.key ?? randomUUID(), prompt: form.prompt, title: form.title, repo: form.repo };
    try {
      const answer = await startTask(ctx(), {
        workspaceId: ws,
        user,
        body: { prompt: form.prompt, title: form.title || null, repo: form.repo || null },
        idempotencyKey: typed.key,
      });
      logAuditEvent(deps.logger, AUDIT_EVENTS.taskStarted, {
        requestId: c.get("requestId"),
        actor: user.email,
        workspace: ws,
        taskId: answer.task.id,
      });
      return c.redirect(`${taskPath(ws, answer.task.id)}?notice=started`, 303);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const next = error.details.billingUrl
        ? { href: billingPath(ws), label: "Open billing" }
        : error.details.settingsUrl
          ? { href: settingsPath(ws), label: "Open settings" }
          : undefined;
      return showNewTask(c, deps, { ...typed, refusal: { reason: error.reason, next } }, statusOf(error));
    }
  });

  app.post(TASK_ROUTES.messages, ...guards, async (c) => {
    const access = await requireWorkspace(deps, c, c.req.param("ws"));
    const ws = access.membership.workspaceId;
    const taskId = c.req.param("task");
    const form = await readForm(c);
    const key = form.key ?? randomUUID();
    try {
      await sendMessage(ctx(), {
        workspaceId: ws,
        taskId,
        user: c.get("webUser"),
        body: { text: form.text },
        idempotencyKey: key,
      });
      return c.redirect(`${taskPath(ws, taskId)}?notice=sent#follow-up-heading`, 303);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code === "not_found") throw pageErrorOf(error);
      const extra = { error: error.reason, followUpText: form.text, followUpKey: key };
      return showTaskPage(c, deps, extra, statusOf(error));
    }
  });

  app.post(TASK_ROUTES.stop, ...guards, async (c) => {
    const access = await requireWorkspace(deps, c, c.req.param("ws"));
    const ws = access.membership.workspaceId;
    const taskId = c.req.param("task");
    const user = c.get("webUser");
    try {
      await stopTaskTurn(ctx(), ws, taskId, user);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code === "not_found") throw pageErrorOf(error);
      return showTaskPage(c, deps, { error: error.reason }, statusOf(error));
    }
    logAuditEvent(deps.logger, AUDIT_EVENTS.taskStopped, {
      requestId: c.get("requestId"),
      actor: user.email,
      workspace: ws,
      taskId,
    });
    return c.redirect(`${taskPath(ws, taskId)}?notice=stopped`, 303);
  });
}

const statusOf = (error: DomainError): number => apiErrorOf(error).status;

function tooLarge(): never {
  throw new HttpError(
    413,
    WIRE_ERRORS.payloadTooLarge,
    "The form is too large (a prompt is at most 100,000 characters). Go back, shorten what you typed and send it again.",
  );
}
