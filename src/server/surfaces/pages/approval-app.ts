// The approval page, oidc-provider's interaction URL: the signed-in person (web session; otherwise the sign-in
// page, which comes back here) sees which app asks, where it will receive the answer and what it may do, and
// approves or denies with a CSRF-protected form. Approve is login and consent at once: a Grant with the resource's
// scope, then the provider resumes the authorization and redirects to the app's loopback address.
import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";
import type { User } from "../../domain/auth/users.js";
import { HttpError } from "../http/http-error.js";
import { createSurface } from "../http/surface.js";
import { type AuthorizationServer, resourceKindOf } from "../oauth/provider.js";
import { API_SCOPE, OAUTH_PATHS, type ResourceKind } from "../oauth/wire.js";
import type { PagesDeps } from "./deps.js";
import type { PagesEnv } from "./env.js";
import { contentSecurityPolicy, pageHeaders } from "./headers.js";
import { html } from "./html.js";
import { renderPage } from "./layout.js";
import { renderMessagePage } from "./message-page.js";
import { requireWebSession, verifyCsrf } from "./session.js";
import { CSRF_FIELD } from "./wire.js";

const HOW_LONG = "until you disconnect it, for up to 90 days, or 30 days unused";

/** What the approved app may do, by the resource it asked for (RFC 8707): the public API or the MCP endpoint. */
export const WHAT_IT_MAY_DO: Record<ResourceKind, string> = {
  api: `act as you in every workspace you belong to: start, follow, reply to and stop tasks; ${HOW_LONG}`,
  mcp: `use Baton's MCP tools as you in every workspace you belong to: see who you are, list and read tasks and their messages, start tasks (their work may push to your code host), send follow-ups and stop tasks; ${HOW_LONG}`,
};

function nodeBindings(c: Context<PagesEnv>): HttpBindings {
  const bindings = c.env as Partial<HttpBindings> | undefined;
  if (!bindings?.incoming || !bindings.outgoing)
    throw new HttpError(503, "unavailable", "the approval page is served over a socket only");
  return bindings as HttpBindings;
}

const expired = () =>
  renderMessagePage({
    title: "This sign-in request has expired",
    message: "Start the sign-in again from the app that asked (for the command line: `baton login`).",
  });

export function createApprovalApp(deps: PagesDeps, server: () => Promise<AuthorizationServer>) {
  const app = createSurface<{ webUser: User; csrfToken: string }>();
  const path = `${OAUTH_PATHS.interaction}/:uid`;
  app.use(path, pageHeaders());
  app.use(path, requireWebSession(deps));

  app.get(path, async (c) => {
    const { incoming, outgoing } = nodeBindings(c);
    const { provider, issuer } = await server();
    const details = await provider.interactionDetails(incoming, outgoing).catch(() => undefined);
    if (!details || details.uid !== c.req.param("uid")) return c.html(expired(), 400);
    const client = await provider.Client.find(String(details.params.client_id));
    if (!client) return c.html(expired(), 400);
    const redirect = URL.canParse(String(details.params.redirect_uri))
      ? new URL(String(details.params.redirect_uri))
      : undefined;
    const redirectHost = redirect?.host ?? "unknown";
    const kind = resourceKindOf(issuer, String(details.params.resource ?? "")) ?? "api";
    const user = c.get("webUser");
    // The form's answer redirects (through the provider) to the app's address, which `form-action` must allow;
    // every other header, and frame-ancestors 'none' against a framed click on Approve, is the pages' own.
    c.header(
      "content-security-policy",
      contentSecurityPolicy(redirect && /^https?:$/.test(redirect.protocol) ? [redirect.origin] : []),
    );
    return c.html(
      renderPage({
        title: "Approve sign-in",
        user,
        body: html`<p><strong>${client.clientName ?? "An app without a name"}</strong> (answering at ${redirectHost})
asks to ${kind === "mcp" ? "connect to Baton over MCP" : "sign in"} as <strong>${user.email}</strong>.</p>
<p>If you approve, it may ${WHAT_IT_MAY_DO[kind]}.</p>
<p>Approve only if you just started this sign-in yourself, on this computer.</p>
<form method="post"><input type="hidden" name="${CSRF_FIELD}" value="${c.get("csrfToken")}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button></form>`,
      }),
    );
  });

  app.post(path, verifyCsrf(), async (c) => {
    const { incoming, outgoing } = nodeBindings(c);
    const { provider, issuer, apiResource } = await server();
    const details = await provider.interactionDetails(incoming, outgoing).catch(() => undefined);
    if (!details || details.uid !== c.req.param("uid")) return c.html(expired(), 400);
    const form = await c.req.parseBody();
    const user = c.get("webUser");
    if (form.decision !== "approve") {
      const to = await provider.interactionResult(incoming, outgoing, {
        error: "access_denied",
        error_description: "the user denied the sign-in",
      });
      return c.redirect(to, 303);
    }
    const requested = details.params.resource;
    const resource =
      typeof requested === "string" && resourceKindOf(issuer, requested) ? requested : apiResource;
    const grant = new provider.Grant({ accountId: user.id, clientId: String(details.params.client_id) });
    grant.addResourceScope(resource, API_SCOPE);
    // `baton` is also the provider's own scope (so that registration accepts it, issue 35 B.11): granted as both.
    grant.addOIDCScope(API_SCOPE);
    const grantId = await grant.save();
    const to = await provider.interactionResult(incoming, outgoing, {
      login: { accountId: user.id },
      consent: { grantId },
    });
    return c.redirect(to, 303);
  });

  return app;
}
