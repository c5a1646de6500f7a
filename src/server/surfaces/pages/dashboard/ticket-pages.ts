// The ticket picker (GET ticketsPath, `?q=`, `?repo=`) and its Delegate buttons (POST delegatePath): the same
// searchTickets and delegateTicket as `GET/POST /v1/workspaces/{id}/tickets[/delegate]`, so the rules are the API's.
// A refusal is shown on the picker with its reason as written, the API's status, and what to do next.
import type { Context } from "hono";
import { AUDIT_EVENTS, logAuditEvent } from "../../../../audit/events.js";
import { DomainError } from "../../../domain/errors.js";
import { delegateTicket } from "../../../domain/tickets/delegate.js";
import type { TicketPorts } from "../../../domain/tickets/ports.js";
import { searchTickets } from "../../../domain/tickets/search.js";
import { enabledReposOf } from "../../../domain/tickets/ticket-store.js";
import type { PagesDeps } from "../deps.js";
import type { PagesEnv } from "../env.js";
import type { Html } from "../html.js";
import { formFields } from "../tokens/forms.js";
import { requireWorkspace, type WorkspaceAccess } from "./access.js";
import type { DashboardApp } from "./app.js";
import { formGuards, SMALL_FORM_BYTES } from "./form-guards.js";
import { renderDashboardPage } from "./frame.js";
import { nextStepForTicket, renderRefusal, ticketRefusalStatus } from "./refusals.js";
import { renderPicker } from "./render-tickets.js";
import { paramOf, routeOf } from "./route-pattern.js";
import { DELEGATED_PARAM, identifierOf, parseDelegateForm, readDelegated } from "./ticket-forms.js";
import { delegatePath, ticketsPath } from "./wire.js";

export const PICKER_TITLE = "Delegate a ticket";

export function addTicketPages(app: DashboardApp, deps: PagesDeps): void {
  const ports = (): TicketPorts => ({
    tracker: deps.tasks.tracker,
    codehost: deps.tasks.codehost,
    logger: deps.logger,
  });

  app.get(routeOf(ticketsPath, "ws"), async (c) => {
    const access = await requireWorkspace(deps, c, paramOf(c, "ws"));
    const query = { q: c.req.query("q") ?? "", repo: c.req.query("repo") ?? "" };
    const delegated = readDelegated(c.req.query(DELEGATED_PARAM));
    return showPicker(c, access, query, { delegated });
  });

  app.get(routeOf(delegatePath, "ws"), (c) => c.redirect(ticketsPath(paramOf(c, "ws")), 303));

  app.post(routeOf(delegatePath, "ws"), ...formGuards(SMALL_FORM_BYTES), async (c) => {
    const access = await requireWorkspace(deps, c, paramOf(c, "ws"));
    const ws = access.membership.workspaceId;
    const form = parseDelegateForm(formFields(await c.req.parseBody()));
    const empty = { q: "", repo: "" };
    if (!form.ok)
      return showPicker(c, access, empty, {
        status: 400,
        refusal: renderRefusal(form.reason, nextStepForTicket("invalid_request", ws)),
      });
    try {
      const user = c.get("webUser");
      const { taskId } = await delegateTicket(
        deps.tasks.context,
        ports(),
        access.membership,
        user,
        form.body,
      );
      logAuditEvent(deps.logger, AUDIT_EVENTS.taskStarted, {
        requestId: c.get("requestId"),
        actor: user.email,
        workspace: ws,
        taskId,
        source: form.body.source,
        via: "delegate",
      });
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return showPicker(c, access, empty, {
        status: ticketRefusalStatus(error),
        refusal: renderRefusal(error.reason, nextStepForTicket(error.code, ws)),
      });
    }
    const done = new URLSearchParams({ [DELEGATED_PARAM]: identifierOf(form.body) });
    return c.redirect(`${ticketsPath(ws)}?${done}`, 303);
  });

  async function showPicker(
    c: Context<PagesEnv>,
    access: WorkspaceAccess,
    query: { q: string; repo: string },
    shown: { status?: number; refusal?: Html; delegated?: string | undefined },
  ) {
    const ws = access.membership.workspaceId;
    const user = c.get("webUser");
    let search = null;
    let status = shown.status ?? 200;
    let refusal = shown.refusal;
    try {
      search = await searchTickets(deps.tasks.context, ports(), access.membership, user, query);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      status = ticketRefusalStatus(error);
      refusal = renderRefusal(error.reason, nextStepForTicket(error.code, ws));
    }
    const body = renderPicker({
      ws,
      user,
      csrfToken: c.get("csrfToken"),
      search,
      enabledRepos: [...(await enabledReposOf(deps.db, ws))].sort(),
      query,
      delegated: shown.delegated,
      refusal,
    });
    const page = renderDashboardPage({
      title: PICKER_TITLE,
      user,
      csrfToken: c.get("csrfToken"),
      access,
      section: "tickets",
      body,
    });
    return c.html(page, status as 200);
  }
}
