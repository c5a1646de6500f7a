// The MCP endpoint's gates, in order: the Origin rule (403, before authentication), the bearer token (401 with
// the RFC 9728 pointer; cookies are never read), the body, bounded before it is read (413), then the one budget
// of calls per token, a batch costing a call per message (400 for a batch its version has none of, 429 with
// Retry-After over the budget). Each refusal is a JSON-RPC error (errors.ts).
import { createMiddleware } from "hono/factory";
import { authenticateApiToken } from "../../domain/auth/api-auth.js";
import type { AuthenticatedToken } from "../../domain/auth/personal-tokens-store.js";
import { DomainError } from "../../domain/errors.js";
import { HttpError } from "../http/http-error.js";
import { readBounded } from "../http/json-body.js";
import type { ServerEnv } from "../http/surface.js";
import { costOfBody } from "./batch-cost.js";
import type { McpDeps } from "./deps.js";
import { batchRefused, forbiddenOrigin, overBudget, tooLarge, unauthorized } from "./errors.js";
import { classifyOrigin } from "./origin.js";
import { MCP_HEADERS, MCP_LIMITS } from "./wire.js";

export type McpEnv = ServerEnv<{ caller: AuthenticatedToken; mcpBody: Uint8Array }>;

export const checkOrigin = () =>
  createMiddleware<McpEnv>(async (c, next) => {
    const verdict = classifyOrigin(c.req.header(MCP_HEADERS.origin));
    if (!verdict.allowed) throw forbiddenOrigin(verdict.reason);
    await next();
  });

export const authenticateBearer = (deps: McpDeps) =>
  createMiddleware<McpEnv>(async (c, next) => {
    try {
      const authorization = c.req.header(MCP_HEADERS.authorization) ?? null;
      c.set("caller", await authenticateApiToken(deps.db, authorization, deps.now().getTime(), "mcp"));
    } catch (error) {
      if (error instanceof DomainError && error.code === "invalid_token")
        throw unauthorized(deps, error.reason);
      throw error;
    }
    await next();
  });

/** One key per token for every MCP call, apart from the API's per-endpoint keys. */
export const mcpBudgetKey = (tokenId: string): string => `${tokenId} mcp`;

/** After readBody: every message of the body is a call, admitted together or refused before any runs. */
export const limitCalls = (deps: McpDeps) =>
  createMiddleware<McpEnv>(async (c, next) => {
    const cost = costOfBody(c.get("mcpBody"), c.req.header(MCP_HEADERS.protocolVersion));
    if (cost.kind === "refused") throw batchRefused(cost.reason);
    const limit = MCP_LIMITS.callsPerMinute;
    const decision = await deps.tasks.limiter.decide(
      mcpBudgetKey(c.get("caller").tokenId),
      limit,
      deps.now().getTime(),
      cost.calls,
    );
    if (!decision.allowed) throw overBudget(limit, decision.retryAfterSeconds);
    await next();
  });

export const readBody = () =>
  createMiddleware<McpEnv>(async (c, next) => {
    try {
      c.set("mcpBody", await readBounded(c.req.raw, "the JSON-RPC request", MCP_LIMITS.bodyBytes));
    } catch (error) {
      if (error instanceof HttpError && error.status === 413) throw tooLarge(error.reason);
      throw tooLarge("the JSON-RPC request could not be read to its end");
    }
    await next();
  });
