// The settings page (GET settingsPath: connections, repositories, the workspace's coding agent, your accounts), the
// agent's form (POST agentSettingsPath, owners and admins) and the billing page (GET billingPath, the target of
// `billingUrl` in a 402 refusal). Any member may see them; the install links are offered to those the install flow
// accepts (owners and admins connect, everyone links), and the agent's form to owners and admins.
import type { Context } from "hono";
import { AUDIT_EVENTS, logAuditEvent } from "../../../../audit/events.js";
import {
  type AgentSettingsDeps,
  assertMayChooseAgent,
  chooseWorkspaceAgent,
  readWorkspaceAgentSettings,
} from "../../../domain/agent/index.js";
import { DomainError } from "../../../domain/errors.js";
import { httpErrorOf } from "../../http/domain-errors.js";
import { WIRE_DOMAIN_ANSWERS } from "../../http/wire-domain-answers.js";
import type { PagesDeps } from "../deps.js";
import type { PagesEnv } from "../env.js";
import { formFields } from "../tokens/forms.js";
import { requireWorkspace, type WorkspaceAccess } from "./access.js";
import { AGENT_SAVED, AGENT_SAVED_PARAM, parseAgentForm, readAgentSaved } from "./agent-form.js";
import type { DashboardApp } from "./app.js";
import { formGuards, SMALL_FORM_BYTES } from "./form-guards.js";
import { renderDashboardPage } from "./frame.js";
import { renderBilling } from "./render-billing.js";
import { renderSettings, type SettingsView } from "./render-settings.js";
import { paramOf, routeOf } from "./route-pattern.js";
import { readBilling, readConnections } from "./settings-store.js";
import { agentSettingsPath, billingPath, settingsPath } from "./wire.js";

export const SETTINGS_TITLE = "Settings";
export const BILLING_TITLE = "Plan and billing";

type AgentNotes = Pick<SettingsView, "agentSaved" | "agentRefusal">;

export function addSettingsPages(app: DashboardApp, deps: PagesDeps): void {
  // Read when a request arrives: composing the routes (the OpenAPI document does) touches no dependency.
  const agents = (): AgentSettingsDeps => ({ db: deps.db, choices: () => deps.tasks.agentChoices() });

  const show = async (c: Context<PagesEnv>, access: WorkspaceAccess, notes: AgentNotes, status = 200) => {
    const ws = access.membership.workspaceId;
    const user = c.get("webUser");
    const body = renderSettings({
      ws,
      csrfToken: c.get("csrfToken"),
      canAdminister: access.membership.role !== "member",
      connections: await readConnections(deps.db, ws, user),
      agent: await readWorkspaceAgentSettings(agents(), ws),
      ...notes,
    });
    return c.html(
      renderDashboardPage({
        title: SETTINGS_TITLE,
        user,
        csrfToken: c.get("csrfToken"),
        access,
        section: "settings",
        body,
      }),
      status as 200,
    );
  };

  app.get(routeOf(settingsPath, "ws"), async (c) => {
    const access = await requireWorkspace(deps, c, paramOf(c, "ws"));
    return show(c, access, { agentSaved: readAgentSaved(c.req.query(AGENT_SAVED_PARAM)) });
  });

  // A reload of the form's address after a POST lands on the page, not on a 404.
  app.get(routeOf(agentSettingsPath, "ws"), (c) => c.redirect(settingsPath(paramOf(c, "ws")), 303));

  app.post(routeOf(agentSettingsPath, "ws"), ...formGuards(SMALL_FORM_BYTES), async (c) => {
    const access = await requireWorkspace(deps, c, paramOf(c, "ws"));
    const ws = access.membership.workspaceId;
    const form = parseAgentForm(formFields(await c.req.parseBody()));
    try {
      // A member learns who can change it, whatever the form holds.
      assertMayChooseAgent(access.membership);
      if (!form.ok) return show(c, access, { agentRefusal: form.reason }, 400);
      await chooseWorkspaceAgent(agents(), access.membership, form.agentId);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      return show(c, access, { agentRefusal: error.reason }, httpErrorOf(WIRE_DOMAIN_ANSWERS, error).status);
    }
    logAuditEvent(deps.logger, AUDIT_EVENTS.workspaceAgentChosen, {
      requestId: c.get("requestId"),
      actor: c.get("webUser").email,
      workspace: ws,
      agent: form.agentId ?? "default",
    });
    return c.redirect(`${settingsPath(ws)}?${AGENT_SAVED_PARAM}=${AGENT_SAVED}#agent`, 303);
  });

  app.get(routeOf(billingPath, "ws"), async (c) => {
    const access = await requireWorkspace(deps, c, paramOf(c, "ws"));
    const ws = access.membership.workspaceId;
    return c.html(
      renderDashboardPage({
        title: BILLING_TITLE,
        user: c.get("webUser"),
        csrfToken: c.get("csrfToken"),
        access,
        section: "settings",
        body: renderBilling(ws, await readBilling(deps.db, ws)),
      }),
    );
  });
}
