// The public API's per-request gates, in order: the token (401), the rate limit for the token and endpoint (429
// `bad_request` with Retry-After), then membership of the path's workspace (404, never 403).
import { createMiddleware } from "hono/factory";
import { authenticateApiToken, requireMembership } from "../../domain/auth/api-auth.js";
import type { AuthenticatedToken } from "../../domain/auth/personal-tokens-store.js";
import type { Membership } from "../../domain/auth/users.js";
import { DomainError } from "../../domain/errors.js";
import type { ServerEnv } from "../http/surface.js";
import type { ApiDeps } from "./deps.js";
import { ApiError, bearerChallenge } from "./errors.js";
import { API_HEADERS, LIMITS } from "./wire.js";

export type ApiEnv = ServerEnv<{ caller: AuthenticatedToken; membership: Membership }>;

export const authenticateCaller = (deps: ApiDeps) =>
  createMiddleware<ApiEnv>(async (c, next) => {
    const authorization = c.req.header(API_HEADERS.authorization) ?? null;
    const caller = await authenticateApiToken(deps.db, authorization, deps.now().getTime()).catch(
      (error: unknown) => {
        if (!(error instanceof DomainError) || error.code !== "invalid_token") throw error;
        // Here alone is it known whether a token was sent, which decides the challenge's error code.
        throw new ApiError("invalid_token", error.reason, error.details, {
          [API_HEADERS.wwwAuthenticate]: bearerChallenge(Boolean(authorization?.trim())),
        });
      },
    );
    c.set("caller", caller);
    await next();
  });

/** `endpoint` names the route (method and path pattern); each token has its own budget per endpoint. */
export const limitRate = (deps: ApiDeps, method: "GET" | "POST" | "DELETE", endpoint: string) =>
  createMiddleware<ApiEnv>(async (c, next) => {
    const limit = method === "GET" ? LIMITS.getPerMinute : LIMITS.postOrDeletePerMinute;
    const decision = await deps.tasks.limiter.decide(
      `${c.get("caller").tokenId} ${method} ${endpoint}`,
      limit,
      deps.now().getTime(),
    );
    if (!decision.allowed)
      throw new ApiError(
        "bad_request",
        `over the rate limit of ${limit} ${method} requests a minute for this endpoint; retry after ${decision.retryAfterSeconds} s`,
        {},
        { [API_HEADERS.retryAfter]: String(decision.retryAfterSeconds) },
      );
    await next();
  });

export const requireWorkspaceMember = (deps: ApiDeps) =>
  createMiddleware<ApiEnv>(async (c, next) => {
    c.set(
      "membership",
      await requireMembership(deps.db, c.get("caller").user, c.req.param("workspaceId") ?? ""),
    );
    await next();
  });
