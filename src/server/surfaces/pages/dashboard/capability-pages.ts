// A repository's capability requests (GET capabilityRequestsPath) and one request (GET capabilityRequestPath, the
// e-mails' link), with "Not now" and supplying a secret for owners and admins (capability-actions.ts): the same
// listRequests, dismissRequest and putSecret as the member routes. Any member may look.

import { listRequests } from "../../../domain/capability/manage.js";
import type { CapabilityRuntime } from "../../../domain/capability/runtime.js";
import type { PagesDeps } from "../deps.js";
import type { DashboardApp } from "./app.js";
import { addCapabilityActions } from "./capability-actions.js";
import { capabilityPagesOf } from "./capability-context.js";
import { DONE_PARAM, readDone } from "./capability-forms.js";
import { renderDashboardPage } from "./frame.js";
import { renderRequestList } from "./render-capability.js";
import { paramOf, routeOf } from "./route-pattern.js";
import {
  capabilityDismissPath,
  capabilityRequestPath,
  capabilityRequestsPath,
  capabilitySecretPath,
} from "./wire.js";

export function addCapabilityPages(app: DashboardApp, deps: PagesDeps, runtime: CapabilityRuntime): void {
  const pages = capabilityPagesOf(deps, runtime);
  const { rt, enter, findRequest, show } = pages;

  app.get(routeOf(capabilityRequestsPath, "ws", "repo"), async (c) => {
    const { access, ws, repoId, slug } = await enter(c);
    return c.html(
      renderDashboardPage({
        title: `Capability requests of ${slug}`,
        user: c.get("webUser"),
        csrfToken: c.get("csrfToken"),
        access,
        section: "settings",
        body: renderRequestList(ws, slug, await listRequests(rt(), ws, repoId)),
      }),
    );
  });

  app.get(routeOf(capabilityRequestPath, "ws", "repo", "request"), async (c) => {
    const { access, ws, repoId } = await enter(c);
    const request = await findRequest(ws, repoId, paramOf(c, "request"));
    return show(c, access, { request, done: readDone(c.req.query(DONE_PARAM)) });
  });

  for (const build of [capabilityDismissPath, capabilitySecretPath])
    app.get(routeOf(build, "ws", "repo", "request"), (c) =>
      c.redirect(capabilityRequestPath(paramOf(c, "ws"), paramOf(c, "repo"), paramOf(c, "request")), 303),
    );

  addCapabilityActions(app, deps, pages);
}
