// GET /install/tracker and its callback: the tracker's OAuth authorization-code flow with PKCE (Linear). An owner
// or admin of a workspace whose tracker is not connected connects it (the token acts as the app); any member of
// a connected workspace links their own tracker identity, so the ticket search reads as them. Without an OAuth
// application configured (`--tracker-client-id`) both routes answer a page saying so.
import type { Context } from "hono";
import { connectionHoldsToken } from "../../../adapters/tracker/connections.js";
import { buildAuthorizationUrl, createPkceVerifier } from "../../../adapters/tracker/linear/index.js";
import { consumeInstallState, issueInstallState } from "../../../domain/auth/install-state.js";
import { HttpError } from "../../http/http-error.js";
import type { PagesDeps } from "../deps.js";
import type { PagesEnv } from "../env.js";
import { type InstallApp, requireMembership, stateRefusal } from "./common.js";
import { completeTrackerInstall, trackerRedirectUri } from "./tracker-callback.js";
import { choosePurpose, purposeOf, roleNeeded, verifierFor } from "./tracker-flow.js";
import { INSTALL_PATHS, WORKSPACE_PARAM } from "./wire.js";

export function addTrackerInstallRoutes(app: InstallApp, deps: PagesDeps): void {
  const oauthOf = () => {
    const oauth = deps.integrations.tracker.oauth;
    if (!oauth)
      throw new HttpError(
        404,
        "not_found",
        "this service has no tracker OAuth application configured; its operator sets --tracker-client-id and --tracker-client-secret-file",
      );
    return oauth;
  };

  app.get(INSTALL_PATHS.tracker, async (c) => {
    const settings = oauthOf();
    const workspaceId = c.req.query(WORKSPACE_PARAM);
    const connected = await (workspaceId ? connectionHoldsToken(deps.db, workspaceId) : false);
    const purpose = choosePurpose({ connected });
    const membership = await requireMembership(
      deps,
      c as Context<PagesEnv>,
      "tracker",
      workspaceId,
      roleNeeded(purpose),
    );
    const verifier = verifierFor(purpose, createPkceVerifier());
    const state = await issueInstallState(
      deps.db,
      deps.secretBox,
      { kind: "tracker", workspaceId: membership.workspaceId, userId: c.get("webUser").id, verifier },
      deps.now(),
    );
    return c.redirect(
      buildAuthorizationUrl({ settings, redirectUri: trackerRedirectUri(deps), state, verifier, purpose }),
      302,
    );
  });

  app.get(INSTALL_PATHS.trackerCallback, async (c) => {
    const settings = oauthOf();
    const user = c.get("webUser");
    const consumed = await consumeInstallState(
      deps.db,
      deps.secretBox,
      { kind: "tracker", state: c.req.query("state"), userId: user.id },
      deps.now(),
    );
    if (!consumed.ok) throw stateRefusal("tracker", consumed.refusal);
    const purpose = consumed.verifier ? purposeOf(consumed.verifier) : undefined;
    if (!purpose || !consumed.verifier) throw stateRefusal("tracker", "invalid");
    const membership = await requireMembership(
      deps,
      c as Context<PagesEnv>,
      "tracker",
      consumed.workspaceId,
      roleNeeded(purpose),
    );
    const page = await completeTrackerInstall(deps, settings, {
      user,
      membership,
      purpose,
      verifier: consumed.verifier,
      code: c.req.query("code"),
      error: c.req.query("error"),
      requestId: c.get("requestId"),
    });
    return c.html(page.html, page.status as 200);
  });
}
