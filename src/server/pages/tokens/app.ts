// The access-tokens page `{dashboard_url}/tokens` (reference section 2, "Access token"), on the public listener
// only, behind the web session: a bearer token never authenticates it. Every POST passes the CSRF check first.
// The created token is in exactly one answer, the create POST's own; the form carried the token's id, so sending
// that form again (a reload of that answer) creates nothing and redirects to the list.
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { WIRE_ERRORS } from "../../../transport/wire.js";
import { AUDIT_EVENTS, logAuditEvent } from "../../audit/events.js";
import { createOwnToken, findOwnToken, listOwnTokens, revokeOwnToken } from "../../auth/own-tokens.js";
import { newId } from "../../auth/tokens.js";
import type { User } from "../../auth/users.js";
import type { ServerDeps } from "../../deps.js";
import { HttpError, invalidRequest, notFound } from "../../http/http-error.js";
import { createSurface } from "../../http/surface.js";
import { type ConnectedApp, disconnectApp, listConnectedApps } from "../../oauth/connected-apps.js";
import type { PagesEnv } from "../env.js";
import { handlePageError } from "../error-page.js";
import { pageHeaders } from "../headers.js";
import { html } from "../html.js";
import { requireWebSession, verifyCsrf } from "../session.js";
import {
  CreateTokenFormSchema,
  DisconnectFormSchema,
  formFields,
  RevokeFormSchema,
  readNotice,
} from "./forms.js";
import { renderConfirmPage, renderTokensPage, type TokensPageView } from "./render-page.js";
import {
  TOKEN_FORM_FIELDS as F,
  FORM_MAX_BYTES,
  NOTICES,
  type Notice,
  TOKENS_PAGE_PATHS as PATHS,
  TOKENS_PAGE_ROUTES as ROUTES,
} from "./wire.js";

/** The authorization server's grants as the page sees them (oauth/connected-apps.ts; tests may pass their own). */
export interface ConnectedAppsPort {
  list(userId: string): ConnectedApp[] | Promise<ConnectedApp[]>;
  disconnect(userId: string, grantId: string): boolean | Promise<boolean>;
}

export function createTokensPageApp(deps: ServerDeps, apps: ConnectedAppsPort = connectedAppsOf(deps)) {
  const app = createSurface<{ webUser: User; csrfToken: string }>();
  app.onError(handlePageError(deps.logger, { href: PATHS.list, label: "Back to the tokens page" }));
  app.use(pageHeaders());
  app.use(requireWebSession(deps));
  const forms = [bodyLimit({ maxSize: FORM_MAX_BYTES, onError: () => tooLarge() }), verifyCsrf()] as const;

  const show = async (c: Context<PagesEnv>, extra: Partial<TokensPageView> = {}, status: 200 | 400 = 200) => {
    const user = c.get("webUser");
    const view: TokensPageView = {
      user,
      csrfToken: c.get("csrfToken"),
      tokens: listOwnTokens(deps.db, user, deps.now().getTime()),
      apps: await apps.list(user.id),
      form: { formId: newId("pat") },
      ...extra,
    };
    return c.html(renderTokensPage(view), status);
  };
  const backToList = (c: Context<PagesEnv>, notice: Notice) =>
    c.redirect(`${PATHS.list}?notice=${notice}`, 303);

  app.get(ROUTES.list, (c) => show(c, { notice: readNotice(c.req.query("notice")) }));

  app.post(ROUTES.list, ...forms, async (c) => {
    const fields = formFields(await c.req.parseBody());
    const parsed = CreateTokenFormSchema.safeParse(fields);
    if (!parsed.success) {
      const error = parsed.error.issues[0]!.message;
      return show(
        c,
        {
          form: {
            formId: fields.formId ?? newId("pat"),
            name: fields.name,
            lifetimeDays: fields.lifetimeDays,
            error,
          },
        },
        400,
      );
    }
    const user = c.get("webUser");
    const { formId, ...input } = parsed.data;
    const created = createOwnToken(deps.db, user, { id: formId, ...input }, deps.now());
    if (created === "already-created") return backToList(c, NOTICES.alreadyCreated);
    logAuditEvent(deps.logger, AUDIT_EVENTS.tokenCreated, {
      requestId: c.get("requestId"),
      actor: user.email,
      tokenId: created.id,
      owner: user.email,
      name: created.name,
      expiresAt: created.expiresAt,
    });
    return show(c, { created });
  });

  app.post(ROUTES.revoke, ...forms, async (c) => {
    const parsed = RevokeFormSchema.safeParse(formFields(await c.req.parseBody()));
    if (!parsed.success) throw invalidRequest(parsed.error.issues[0]!.message);
    const user = c.get("webUser");
    const nowMs = deps.now().getTime();
    const token = findOwnToken(deps.db, user, parsed.data.tokenId, nowMs);
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
    const outcome = revokeOwnToken(deps.db, user, token.id, nowMs);
    if (outcome === "not-found") throw noSuchToken();
    if (outcome === "revoked")
      logAuditEvent(deps.logger, AUDIT_EVENTS.tokenRevoked, {
        requestId: c.get("requestId"),
        actor: user.email,
        tokenId: token.id,
      });
    return backToList(c, outcome === "revoked" ? NOTICES.revoked : NOTICES.alreadyRevoked);
  });

  app.post(ROUTES.disconnect, ...forms, async (c) => {
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
    return backToList(c, NOTICES.disconnected);
  });
  return app;
}

function connectedAppsOf(deps: ServerDeps): ConnectedAppsPort {
  return {
    list: (userId) => listConnectedApps(deps, userId),
    disconnect: (userId, grantId) => disconnectApp(deps, userId, grantId),
  };
}

const noSuchToken = () =>
  notFound("You have no such token (it may belong to someone else). Pick one from the list.");
const noSuchApp = () =>
  notFound("You have no such connected app (it may be disconnected already). Pick one from the list.");
const tooLarge = (): never => {
  throw new HttpError(
    413,
    WIRE_ERRORS.payloadTooLarge,
    "The form is too large. Go back, shorten what you typed and send it again.",
  );
};
