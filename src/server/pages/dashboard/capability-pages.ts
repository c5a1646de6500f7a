// A repository's capability requests (GET capabilityRequestsPath) and one request (GET capabilityRequestPath, the
// e-mails' link), with "Not now" (POST .../dismiss) and supplying a secret (POST .../secret) for owners and admins:
// the same listRequests, dismissRequest and putSecret as the member routes, the same audit events. A member who
// posts gets the request page, 403, saying who can act. The secret's value reaches putSecret and nothing else.
import type { Context } from "hono";
import { WIRE_ERRORS } from "../../../transport/wire.js";
import { AUDIT_EVENTS, logAuditEvent } from "../../audit/events.js";
import { ROLLOUT_DISABLED_REASON } from "../../auth/authenticate.js";
import { dismissRequest, listRequests, putSecret } from "../../capability/manage.js";
import type { CapabilityRuntime } from "../../capability/runtime.js";
import type { ServerDeps } from "../../deps.js";
import { DomainError } from "../../domain/errors.js";
import { HttpError } from "../../http/http-error.js";
import type { PagesEnv } from "../env.js";
import { formFields } from "../tokens/forms.js";
import { requireWorkspace, type WorkspaceAccess } from "./access.js";
import type { DashboardApp } from "./app.js";
import { DONE, DONE_PARAM, parseSecretForm, readDone } from "./capability-forms.js";
import { capabilityRuntimeOf } from "./capability-runtime.js";
import { formGuards, SECRET_FORM_BYTES, SMALL_FORM_BYTES } from "./form-guards.js";
import { renderDashboardPage } from "./frame.js";
import { capabilityRefusalStatus, renderRefusal } from "./refusals.js";
import { type RequestView, renderRequest, renderRequestList } from "./render-capability.js";
import { paramOf, routeOf } from "./route-pattern.js";
import { repositorySlugOf, rolloutEnabled } from "./settings-store.js";
import {
  capabilityDismissPath,
  capabilityRequestPath,
  capabilityRequestsPath,
  capabilitySecretPath,
} from "./wire.js";

export const REQUEST_TITLE = "Capability request";

export function addCapabilityPages(app: DashboardApp, deps: ServerDeps): void {
  // Made on first use: composing the routes (the OpenAPI document does it with no store) reads nothing.
  let made: CapabilityRuntime | undefined;
  const rt = () => {
    made ??= capabilityRuntimeOf(deps);
    return made;
  };

  /** The workspace (member), its rollout, and the repository: 404 for another workspace's, as the API. */
  const enter = (c: Context<PagesEnv>) => {
    const access = requireWorkspace(deps, c, paramOf(c, "ws"));
    const ws = access.membership.workspaceId;
    if (!rolloutEnabled(deps.db, ws))
      throw new HttpError(403, WIRE_ERRORS.rolloutDisabled, ROLLOUT_DISABLED_REASON);
    const repoId = paramOf(c, "repo");
    const slug = repositorySlugOf(deps.db, ws, repoId);
    if (slug === undefined)
      throw new HttpError(
        404,
        WIRE_ERRORS.notFound,
        "no such repository; pick one from the workspace's settings",
      );
    return { access, ws, repoId, slug };
  };
  const findRequest = (ws: string, repoId: string, requestId: string) => {
    const request = listRequests(rt(), ws, repoId).find((r) => r.requestId === requestId);
    if (!request)
      throw new HttpError(
        404,
        WIRE_ERRORS.notFound,
        "no such capability request; pick one from the repository's list",
      );
    return request;
  };
  const show = (
    c: Context<PagesEnv>,
    access: WorkspaceAccess,
    view: Omit<RequestView, "ws" | "csrfToken" | "canAct">,
    status = 200,
  ) =>
    c.html(
      renderDashboardPage({
        title: REQUEST_TITLE,
        user: c.get("webUser"),
        csrfToken: c.get("csrfToken"),
        access,
        section: "settings",
        body: renderRequest({
          ...view,
          ws: access.membership.workspaceId,
          csrfToken: c.get("csrfToken"),
          canAct: access.membership.role !== "member",
        }),
      }),
      status as 200,
    );
  const backToRequest = (ws: string, repoId: string, requestId: string) => ({
    href: capabilityRequestPath(ws, repoId, requestId),
    label: "Back to the request",
  });
  /** A member's POST: the request page, 403, naming who can act. */
  const refuseMember = (c: Context<PagesEnv>, access: WorkspaceAccess, repoId: string, requestId: string) => {
    const ws = access.membership.workspaceId;
    const reason = `only an owner or admin of ${access.membership.workspaceName} can do this; ask one of them`;
    return show(
      c,
      access,
      {
        request: findRequest(ws, repoId, requestId),
        refusal: renderRefusal(reason, backToRequest(ws, repoId, requestId)),
      },
      403,
    );
  };

  app.get(routeOf(capabilityRequestsPath, "ws", "repo"), (c) => {
    const { access, ws, repoId, slug } = enter(c);
    return c.html(
      renderDashboardPage({
        title: `Capability requests of ${slug}`,
        user: c.get("webUser"),
        csrfToken: c.get("csrfToken"),
        access,
        section: "settings",
        body: renderRequestList(ws, slug, listRequests(rt(), ws, repoId)),
      }),
    );
  });

  app.get(routeOf(capabilityRequestPath, "ws", "repo", "request"), (c) => {
    const { access, ws, repoId } = enter(c);
    const request = findRequest(ws, repoId, paramOf(c, "request"));
    return show(c, access, { request, done: readDone(c.req.query(DONE_PARAM)) });
  });

  for (const build of [capabilityDismissPath, capabilitySecretPath])
    app.get(routeOf(build, "ws", "repo", "request"), (c) =>
      c.redirect(capabilityRequestPath(paramOf(c, "ws"), paramOf(c, "repo"), paramOf(c, "request")), 303),
    );

  app.post(routeOf(capabilityDismissPath, "ws", "repo", "request"), ...formGuards(SMALL_FORM_BYTES), (c) => {
    const { access, ws, repoId } = enter(c);
    const requestId = paramOf(c, "request");
    if (access.membership.role === "member") return refuseMember(c, access, repoId, requestId);
    try {
      dismissRequest(rt(), ws, repoId, requestId);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      const refusal = renderRefusal(error.reason, backToRequest(ws, repoId, requestId));
      return show(
        c,
        access,
        { request: findRequest(ws, repoId, requestId), refusal },
        capabilityRefusalStatus(error),
      );
    }
    logAuditEvent(deps.logger, AUDIT_EVENTS.capabilityDismissed, {
      requestId: c.get("requestId"),
      actor: c.get("webUser").email,
      workspace: ws,
      repository: repoId,
      capabilityRequestId: requestId,
    });
    return c.redirect(`${capabilityRequestPath(ws, repoId, requestId)}?${DONE_PARAM}=${DONE.dismissed}`, 303);
  });

  app.post(
    routeOf(capabilitySecretPath, "ws", "repo", "request"),
    ...formGuards(SECRET_FORM_BYTES),
    async (c) => {
      const { access, ws, repoId } = enter(c);
      const requestId = paramOf(c, "request");
      if (access.membership.role === "member") return refuseMember(c, access, repoId, requestId);
      const form = parseSecretForm(formFields(await c.req.parseBody()), requestId);
      const refuse = (reason: string, status: number, name: string, allowedHosts: string) =>
        show(
          c,
          access,
          {
            request: findRequest(ws, repoId, requestId),
            refusal: renderRefusal(reason, backToRequest(ws, repoId, requestId)),
            secretForm: { name, allowedHosts },
          },
          status,
        );
      if (!form.ok) return refuse(form.reason, 400, form.name, form.allowedHosts);
      let rotated: boolean;
      try {
        rotated = !putSecret(rt(), ws, repoId, form.name, form.body).created;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        return refuse(
          error.reason,
          capabilityRefusalStatus(error),
          form.name,
          form.body.allowedHosts.join("\n"),
        );
      }
      // The name only: the value never reaches a log line.
      logAuditEvent(deps.logger, AUDIT_EVENTS.secretWritten, {
        requestId: c.get("requestId"),
        actor: c.get("webUser").email,
        workspace: ws,
        repository: repoId,
        secretName: form.name,
        rotated,
      });
      return c.redirect(`${capabilityRequestPath(ws, repoId, requestId)}?${DONE_PARAM}=${DONE.secret}`, 303);
    },
  );
}
