// Revoke and Disconnect: the first POST names what will happen and asks to confirm; the second (`confirm=yes`)
// does it and redirects to the list. Only the signed-in user's own tokens and apps are found; anyone else's id is
// "not found" and nothing changes.
import { AUDIT_EVENTS, logAuditEvent } from "../../../../audit/events.js";
import { findOwnToken, revokeOwnToken } from "../../../domain/auth/own-tokens.js";
import { invalidRequest, notFound } from "../../http/http-error.js";
import { html } from "../html.js";
import type { TokensPageApp, TokensPageContext } from "./app.js";
import { DisconnectFormSchema, formFields, RevokeFormSchema } from "./forms.js";
import { renderConfirmPage } from "./render-page.js";
import { redirectToList } from "./token-routes.js";
import {
  TOKEN_FORM_FIELDS as F,
  NOTICES,
  TOKENS_PAGE_PATHS as PATHS,
  TOKENS_PAGE_ROUTES as ROUTES,
} from "./wire.js";

export function addConfirmedRoutes(app: TokensPageApp, { deps, apps, formGuards }: TokensPageContext): void {
  // Only forms post here; a browser that lands on one by GET (a bookmark, the `next` of a sign-in that began with
  // an expired session's POST) goes to the list, where the action can be chosen again.
  for (const route of [ROUTES.revoke, ROUTES.disconnect]) app.get(route, (c) => c.redirect(PATHS.list, 303));

  app.post(ROUTES.revoke, ...formGuards, async (c) => {
    const parsed = RevokeFormSchema.safeParse(formFields(await c.req.parseBody()));
    if (!parsed.success) throw invalidRequest(parsed.error.issues[0]!.message);
    const user = c.get("webUser");
    const nowMs = deps.now().getTime();
    const token = await findOwnToken(deps.db, user, parsed.data.tokenId, nowMs);
    if (!token) throw noSuchToken();
    if (parsed.data.confirm === undefined)
      return c.html(
        renderConfirmPage({
          user,
          csrfToken: c.get("csrfToken"),
          title: "Revoke this token?",
          question: html`Revoke the token “${token.name}” ending in <code>${token.lastFour}</code>? Anything using it is refused from its next call (401 invalid_token). This cannot be undone.`,
          action: PATHS.revoke,
          field: { name: F.tokenId, value: token.id },
          button: "Revoke token",
        }),
      );
    const outcome = await revokeOwnToken(deps.db, user, token.id, nowMs);
    if (outcome === "not-found") throw noSuchToken();
    if (outcome === "revoked")
      logAuditEvent(deps.logger, AUDIT_EVENTS.tokenRevoked, {
        requestId: c.get("requestId"),
        actor: user.email,
        tokenId: token.id,
      });
    return redirectToList(c, outcome === "revoked" ? NOTICES.revoked : NOTICES.alreadyRevoked);
  });

  app.post(ROUTES.disconnect, ...formGuards, async (c) => {
    const parsed = DisconnectFormSchema.safeParse(formFields(await c.req.parseBody()));
    if (!parsed.success) throw invalidRequest(parsed.error.issues[0]!.message);
    const user = c.get("webUser");
    const connected = (await apps.list(user.id)).find((one) => one.grantId === parsed.data.grantId);
    if (!connected) throw noSuchApp();
    if (parsed.data.confirm === undefined)
      return c.html(
        renderConfirmPage({
          user,
          csrfToken: c.get("csrfToken"),
          title: "Disconnect this app?",
          question: html`Disconnect “${connected.clientName}”? Its next call is refused; to use it again, sign in there again.`,
          action: PATHS.disconnect,
          field: { name: F.grantId, value: connected.grantId },
          button: "Disconnect app",
        }),
      );
    if (!(await apps.disconnect(user.id, connected.grantId))) throw noSuchApp();
    return redirectToList(c, NOTICES.disconnected);
  });
}

const noSuchToken = () =>
  notFound("You have no such token (it may belong to someone else). Pick one from the list.");
const noSuchApp = () =>
  notFound("You have no such connected app (it may be disconnected already). Pick one from the list.");
