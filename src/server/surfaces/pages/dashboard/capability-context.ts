// What the capability-request pages share: the service's capability runtime (the member routes' own), entering a workspace's
// repository with the member routes' rules (404 for another workspace's, 403 without the rollout), finding a
// request, and rendering the request page with a refusal (a member's POST is 403 on that page).
import type { Context } from "hono";
import { WIRE_ERRORS } from "../../../../transport/wire.js";
import { ROLLOUT_DISABLED_REASON } from "../../../domain/auth/authenticate.js";
import { listRequests } from "../../../domain/capability/manage.js";
import type { CapabilityRuntime } from "../../../domain/capability/runtime.js";
import { HttpError } from "../../http/http-error.js";
import type { PagesDeps } from "../deps.js";
import type { PagesEnv } from "../env.js";
import { requireWorkspace, type WorkspaceAccess } from "./access.js";
import { renderDashboardPage } from "./frame.js";
import { renderRefusal } from "./refusals.js";
import { type RequestView, renderRequest } from "./render-capability.js";
import { paramOf } from "./route-pattern.js";
import { repositorySlugOf, rolloutEnabled } from "./settings-store.js";
import { capabilityRequestPath } from "./wire.js";

export const REQUEST_TITLE = "Capability request";

export type CapabilityPages = ReturnType<typeof capabilityPagesOf>;

export function capabilityPagesOf(deps: PagesDeps, runtime: CapabilityRuntime) {
  const rt = () => runtime;

  /** The workspace (member), its rollout, and the repository: 404 for another workspace's, as the API. */
  const enter = async (c: Context<PagesEnv>) => {
    const access = await requireWorkspace(deps, c, paramOf(c, "ws"));
    const ws = access.membership.workspaceId;
    if (!(await rolloutEnabled(deps.db, ws)))
      throw new HttpError(403, WIRE_ERRORS.rolloutDisabled, ROLLOUT_DISABLED_REASON);
    const repoId = paramOf(c, "repo");
    const slug = await repositorySlugOf(deps.db, ws, repoId);
    if (slug === undefined)
      throw new HttpError(
        404,
        WIRE_ERRORS.notFound,
        "no such repository; pick one from the workspace's settings",
      );
    return { access, ws, repoId, slug };
  };
  const findRequest = async (ws: string, repoId: string, requestId: string) => {
    const request = (await listRequests(rt(), ws, repoId)).find((r) => r.requestId === requestId);
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
  const refuseMember = async (
    c: Context<PagesEnv>,
    access: WorkspaceAccess,
    repoId: string,
    requestId: string,
  ) => {
    const ws = access.membership.workspaceId;
    const reason = `only an owner or admin of ${access.membership.workspaceName} can do this; ask one of them`;
    return show(
      c,
      access,
      {
        request: await findRequest(ws, repoId, requestId),
        refusal: renderRefusal(reason, backToRequest(ws, repoId, requestId)),
      },
      403,
    );
  };
  return { rt, enter, findRequest, show, backToRequest, refuseMember };
}
