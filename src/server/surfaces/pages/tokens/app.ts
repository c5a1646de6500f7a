// The access-tokens page `{dashboard_url}/tokens` (reference section 2, "Access token"), on the public listener
// only, behind the web session: a bearer token never authenticates it. Every POST passes the body limit and the
// CSRF check before its handler reads a field.

import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { WIRE_ERRORS } from "../../../../transport/wire.js";
import type { User } from "../../../domain/auth/users.js";
import { HttpError } from "../../http/http-error.js";
import { createSurface } from "../../http/surface.js";
import { type ConnectedApp, disconnectApp, listConnectedApps } from "../../oauth/connected-apps.js";
import type { PagesDeps } from "../deps.js";
import type { PagesEnv } from "../env.js";
import { handlePageError } from "../error-page.js";
import { pageHeaders } from "../headers.js";
import { requireWebSession, verifyCsrf } from "../session.js";
import { addConfirmedRoutes } from "./confirmed-routes.js";
import { addTokenRoutes } from "./token-routes.js";
import { FORM_MAX_BYTES, TOKENS_PAGE_PATHS } from "./wire.js";

/** The authorization server's grants as the page sees them (surfaces/oauth/connected-apps.ts; tests may pass their own). */
export interface ConnectedAppsPort {
  list(userId: string): ConnectedApp[] | Promise<ConnectedApp[]>;
  disconnect(userId: string, grantId: string): boolean | Promise<boolean>;
}

export type TokensPageApp = OpenAPIHono<PagesEnv>;

export interface TokensPageContext {
  deps: PagesDeps;
  apps: ConnectedAppsPort;
  /** What every POST passes first: the body limit, then the CSRF check. */
  formGuards: readonly [MiddlewareHandler<PagesEnv>, MiddlewareHandler<PagesEnv>];
}

export function createTokensPageApp(
  deps: PagesDeps,
  apps: ConnectedAppsPort = connectedAppsOf(deps),
): TokensPageApp {
  const app = createSurface<{ webUser: User; csrfToken: string }>();
  app.onError(
    handlePageError(deps.logger, { href: TOKENS_PAGE_PATHS.list, label: "Back to the tokens page" }),
  );
  app.use(pageHeaders());
  app.use(requireWebSession(deps));
  const formGuards = [
    bodyLimit({ maxSize: FORM_MAX_BYTES, onError: () => tooLarge() }),
    verifyCsrf({ thrown: true }),
  ] as const;
  const context: TokensPageContext = { deps, apps, formGuards };
  addTokenRoutes(app, context);
  addConfirmedRoutes(app, context);
  return app;
}

function connectedAppsOf(deps: PagesDeps): ConnectedAppsPort {
  return {
    list: (userId) => listConnectedApps(deps, userId),
    disconnect: (userId, grantId) => disconnectApp(deps, userId, grantId),
  };
}

function tooLarge(): never {
  throw new HttpError(
    413,
    WIRE_ERRORS.payloadTooLarge,
    "The form is too large. Go back, shorten what you typed and send it again.",
  );
}
