// What both install flows share: a page app behind the web session (a bearer token never starts an install), the
// caller's membership in the workspace named by `?workspace=` (a non-member gets the same 404 as a workspace that
// does not exist), and the pages that refuse a `state` saying what to do next.
import type { Context } from "hono";
import type { InstallKind, InstallStateRefusal } from "../../../domain/auth/install-state.js";
import { type Membership, membershipOf, type User } from "../../../domain/auth/users.js";
import { HttpError } from "../../http/http-error.js";
import { createSurface } from "../../http/surface.js";
import type { PagesDeps } from "../deps.js";
import type { PagesEnv } from "../env.js";
import { handlePageError } from "../error-page.js";
import { pageHeaders } from "../headers.js";
import { requireWebSession } from "../session.js";
import { PAGE_PATHS } from "../wire.js";
import { INSTALL_BASE, INSTALL_PATHS, WORKSPACE_PARAM } from "./wire.js";

export function createInstallSurface(deps: PagesDeps) {
  const app = createSurface<{ webUser: User; csrfToken: string }>();
  app.onError(handlePageError(deps.logger, { href: PAGE_PATHS.tokens, label: "Back to your settings" }));
  // Mounted at "/" beside other surfaces: the middleware is scoped to the install paths, never the whole listener.
  app.use(`${INSTALL_BASE}/*`, pageHeaders());
  app.use(`${INSTALL_BASE}/*`, requireWebSession(deps));
  return app;
}
export type InstallApp = ReturnType<typeof createInstallSurface>;

const PLATFORM_NAME: Record<InstallKind, string> = { codehost: "code host", tracker: "tracker" };

/**
 * The signed-in member's membership in `?workspace=`; `admin`: only an owner or admin may (connecting the
 * workspace). Refusals are HttpErrors the page app renders: 400 without the parameter, 404 for a workspace the
 * caller is not in, 403 for a member where an owner or admin is needed.
 */
export async function requireMembership(
  deps: PagesDeps,
  c: Context<PagesEnv>,
  kind: InstallKind,
  workspaceId: string | undefined,
  need: "admin" | "member",
): Promise<Membership> {
  if (!workspaceId)
    throw new HttpError(
      400,
      "invalid_request",
      `name the workspace: ${INSTALL_PATHS[kind]}?${WORKSPACE_PARAM}=<workspace id> (baton workspace shows its id)`,
    );
  const membership = await membershipOf(deps.db, c.get("webUser"), workspaceId);
  if (!membership) throw new HttpError(404, "not_found", "no such workspace");
  if (need === "admin" && membership.role === "member")
    throw new HttpError(
      403,
      "forbidden",
      `only an owner or admin of ${membership.workspaceName} can connect its ${PLATFORM_NAME[kind]}; ask one of them`,
    );
  return membership;
}

/** A `state` the callback refused, as a page that says what happened and what to do (status 400). */
export function stateRefusal(kind: InstallKind, refusal: InstallStateRefusal): HttpError {
  const again = `start again from ${INSTALL_PATHS[kind]}?${WORKSPACE_PARAM}=<workspace id>`;
  const reasons: Record<InstallStateRefusal, string> = {
    missing: `this link carries no state, so it cannot be tied to your workspace; ${again}`,
    invalid: `this link's state was not issued by this service for this flow; ${again}`,
    used: `this link was already used; ${again} to connect again`,
    expired: `this link expired (links last ten minutes); ${again}`,
    other_member: `this link was started by another member; ${again} while signed in as yourself`,
  };
  return new HttpError(400, "invalid_request", reasons[refusal]);
}
