// The dashboard (issue 25): server-rendered pages on the public listener, behind the web session, calling the
// same domain functions as the API. Mounted at "/": its middleware is scoped to the dashboard's own paths, so the
// listener's other surfaces (and /dashboard/sign-in, /dashboard/tokens) are untouched. Each group of pages adds
// its routes from its own module.

import type { User } from "../../../domain/auth/users.js";
import type { CapabilityRuntime } from "../../../domain/capability/runtime.js";
import { createSurface } from "../../http/surface.js";
import type { PagesDeps } from "../deps.js";
import { pageHeaders } from "../headers.js";
import { requireWebSession } from "../session.js";
import { addCapabilityPages } from "./capability-pages.js";
import { handleDashboardError } from "./error-frame.js";
import { addSettingsPages } from "./settings-pages.js";
import { addTaskPages } from "./task-routes.js";
import { addTicketPages } from "./ticket-pages.js";
import { DASHBOARD_HOME, WORKSPACES_BASE } from "./wire.js";

export function createDashboardSurface(deps: PagesDeps) {
  const app = createSurface<{ webUser: User; csrfToken: string }>();
  app.onError(handleDashboardError(deps));
  for (const path of [DASHBOARD_HOME, `${WORKSPACES_BASE}/*`]) {
    app.use(path, pageHeaders([], { ownScript: true }));
    app.use(path, requireWebSession(deps));
  }
  return app;
}
export { answerDashboardNotFound } from "./error-frame.js";
export type DashboardApp = ReturnType<typeof createDashboardSurface>;

/** `rt`: the service's capability runtime (the member routes' own: matcher, e-mail kick, secret box). */
export function createDashboardApp(deps: PagesDeps, rt: CapabilityRuntime): DashboardApp {
  const app = createDashboardSurface(deps);
  // Page groups register here (tasks, tickets, settings, capability requests).
  addTaskPages(app, deps);
  addTicketPages(app, deps);
  addSettingsPages(app, deps);
  addCapabilityPages(app, deps, rt);
  return app;
}
