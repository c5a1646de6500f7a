// The tracker callback's work once the state checked out: exchange the code (with the state's PKCE verifier),
// read who the token acts as (`viewer { id name organization { id name } }`), then record the workspace's
// connection or the member's identity, and say on a page what happened and what to do next. The tokens go
// sealed into the store and nowhere else; a refusal from the tracker is shown without them.
import { AUDIT_EVENTS, logAuditEvent } from "../../../../audit/events.js";
import type { TrackerOAuthSettings } from "../../../adapters/integrations/settings.js";
import {
  connectionOfWorkspace,
  linkMemberIdentity,
  type OAuthTokens,
  OrganizationElsewhereError,
  recordConnection,
} from "../../../adapters/tracker/connections.js";
import {
  type AuthorizationPurpose,
  createGraphqlClient,
  exchangeCode,
  type LinearViewer,
  TrackerApiError,
  VIEWER,
} from "../../../adapters/tracker/linear/index.js";
import type { Membership, User } from "../../../domain/auth/users.js";
import { HttpError } from "../../http/http-error.js";
import type { PagesDeps } from "../deps.js";
import { renderMessagePage } from "../message-page.js";
import { INSTALL_PATHS, WORKSPACE_PARAM } from "./wire.js";

export const trackerRedirectUri = (deps: PagesDeps): string =>
  `${(deps.capability?.serviceUrl ?? "http://127.0.0.1").replace(/\/+$/, "")}${INSTALL_PATHS.trackerCallback}`;

const startUrl = (workspaceId: string) =>
  `${INSTALL_PATHS.tracker}?${WORKSPACE_PARAM}=${encodeURIComponent(workspaceId)}`;

export interface CallbackInput {
  user: User;
  membership: Membership;
  purpose: AuthorizationPurpose;
  verifier: string;
  code: string | undefined;
  error: string | undefined;
  requestId: string;
}

export async function completeTrackerInstall(
  deps: PagesDeps,
  settings: TrackerOAuthSettings,
  input: CallbackInput,
): Promise<{ status: number; html: string }> {
  const { membership, user } = input;
  const again = startUrl(membership.workspaceId);
  const page = (title: string, message: string, status = 200) => ({
    status,
    html: renderMessagePage({ title, message, user }),
  });
  if (input.error === "access_denied")
    return page(
      "Access declined",
      `You declined the tracker's request, so nothing was connected or linked for ${membership.workspaceName}. To try again, open ${again}.`,
    );
  if (input.error || !input.code)
    throw new HttpError(
      400,
      "invalid_request",
      `the tracker sent no authorization code${input.error ? ` (it said ${input.error})` : ""}; start again from ${again}`,
    );
  const { tokens, viewer } = await readGrant(deps, settings, input.code, input.verifier, again);
  const audit = { requestId: input.requestId, actor: user.email, workspace: membership.workspaceId };
  if (input.purpose === "connect") {
    try {
      await recordConnection(
        deps.db,
        deps.secretBox,
        {
          workspaceId: membership.workspaceId,
          organizationId: viewer.organization.id,
          organizationName: viewer.organization.name,
          agentUserId: viewer.id,
          tokens,
        },
        deps.now(),
      );
    } catch (error) {
      if (!(error instanceof OrganizationElsewhereError)) throw error;
      throw new HttpError(
        409,
        "conflict",
        `the tracker organisation ${viewer.organization.name} is already connected to another Baton workspace; disconnect it there first, or connect another organisation`,
      );
    }
    logAuditEvent(deps.logger, AUDIT_EVENTS.trackerConnected, {
      ...audit,
      organization: viewer.organization.id,
    });
    // With actor=app the token is the app's own user, not the installer's: their identity is linked separately.
    return page(
      "Tracker connected",
      `${membership.workspaceName} is connected to the tracker organisation ${viewer.organization.name}; Baton acts there as ${viewer.name}. Next, link your own tracker account so your issues show in the ticket search: open ${again}. Each member links theirs the same way.`,
    );
  }
  const connection = await connectionOfWorkspace(deps.db, membership.workspaceId);
  const bound = connection?.organizationId === viewer.organization.id;
  await linkMemberIdentity(deps.db, deps.secretBox, {
    workspaceId: membership.workspaceId,
    userId: user.id,
    email: user.email,
    identity: viewer.id,
    bound,
    tokens,
  });
  logAuditEvent(deps.logger, AUDIT_EVENTS.trackerIdentityLinked, { ...audit, identity: viewer.id, bound });
  return bound
    ? page(
        "Tracker account linked",
        `Your tracker account ${viewer.name} is linked in ${membership.workspaceName}: the ticket search now lists your open issues and the team's unassigned ones, read as you.`,
      )
    : page(
        "Linked to another organisation",
        `Your tracker account ${viewer.name} belongs to ${viewer.organization.name}, but ${membership.workspaceName} is connected to ${connection?.organizationName ?? "no organisation"}; sign in to the tracker with your account there and open ${again} again.`,
      );
}

async function readGrant(
  deps: PagesDeps,
  settings: TrackerOAuthSettings,
  code: string,
  verifier: string,
  again: string,
): Promise<{ tokens: OAuthTokens; viewer: LinearViewer }> {
  try {
    const tokens = await exchangeCode(
      { settings, fetch, now: deps.now },
      { code, verifier, redirectUri: trackerRedirectUri(deps) },
    );
    const graphql = createGraphqlClient({ apiUrl: settings.apiUrl, now: deps.now });
    const { viewer } = await graphql(tokens.accessToken, VIEWER);
    return { tokens, viewer };
  } catch (error) {
    if (!(error instanceof TrackerApiError)) throw error;
    deps.logger.warn({ err: error.message }, "tracker install: the tracker refused the grant");
    throw new HttpError(502, "bad_gateway", `${error.message}; start again from ${again}`);
  }
}
