// The settings page (GET settingsPath: connections, repositories, your accounts) and the billing page (GET
// billingPath, the target of `billingUrl` in a 402 refusal). Both read-only; any member may see them, and the
// install links are offered to those the install flow accepts (owners and admins connect, everyone links).
import type { PagesDeps } from "../deps.js";
import { requireWorkspace } from "./access.js";
import type { DashboardApp } from "./app.js";
import { renderDashboardPage } from "./frame.js";
import { renderBilling } from "./render-billing.js";
import { renderSettings } from "./render-settings.js";
import { paramOf, routeOf } from "./route-pattern.js";
import { readBilling, readConnections } from "./settings-store.js";
import { billingPath, settingsPath } from "./wire.js";

export const SETTINGS_TITLE = "Settings";
export const BILLING_TITLE = "Plan and billing";

export function addSettingsPages(app: DashboardApp, deps: PagesDeps): void {
  app.get(routeOf(settingsPath, "ws"), async (c) => {
    const access = await requireWorkspace(deps, c, paramOf(c, "ws"));
    const ws = access.membership.workspaceId;
    const user = c.get("webUser");
    const body = renderSettings({
      ws,
      canAdminister: access.membership.role !== "member",
      connections: await readConnections(deps.db, ws, user),
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
    );
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
