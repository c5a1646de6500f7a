// The OpenAPI 3.1 document, generated from the composed app's route definitions and their zod schemas (nothing
// is assembled by hand): describeApp here; composing the whole app to describe it is the composition's
// (src/server/openapi-document.ts). What third-party tooling expects of every document (issue 35 B.16: Redocly's
// recommended rules, generated clients) is added here once, not route by route: a server, a licence, an
// operationId and an explicit security requirement on every operation.
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { ServerEnv } from "../http/surface.js";

export const OPENAPI_INFO = {
  openapi: "3.1.0",
  info: {
    title: "baton serve: operations transport, admin API and member routes",
    version: "1.0.0",
    description:
      "The service's HTTP API. The public API is in docs/api.md; the operations transport in docs/agents.md; the listeners and the admin API in docs/operators.md.",
    license: { name: "UNLICENSED (proprietary; see package.json)" },
  },
  // Relative to where the document is served from: each listener's own origin (docs/operators.md "Listeners").
  servers: [{ url: "/", description: "the listener that serves this document" }],
};

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"] as const;

type Response = { description: string; headers?: Record<string, unknown>; content?: unknown };
type Operation = { operationId?: string; security?: unknown[]; responses?: Record<string, Response> };

/**
 * The failed-credential throttle (surfaces/http/failed-credentials.ts) turns a 401 into a 429 with Retry-After
 * once a source has failed too often, on every listener: any operation that can answer 401 can answer it.
 */
const THROTTLED =
  "bad_request: too many failed credentials from this address; see Retry-After, and retry with a valid credential";
const RETRY_AFTER = {
  "retry-after": {
    description: "seconds to wait before trying again",
    required: true,
    schema: { type: "integer", minimum: 1 },
  },
};

function declareThrottle(responses: Record<string, Response>): void {
  const unauthorized = responses["401"];
  if (!unauthorized) return;
  const declared = responses["429"];
  if (declared) declared.description = `${declared.description}; or ${THROTTLED}`;
  else
    responses["429"] = {
      description: THROTTLED,
      headers: RETRY_AFTER,
      ...(unauthorized.content ? { content: unauthorized.content } : {}),
    };
}

/**
 * `GET /v1/workspaces/{workspaceId}/tasks` is `get_v1_workspaces_workspaceId_tasks`: unique because a method and
 * a path are, stable while the route is, and readable in a generated client.
 */
export function operationIdFor(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [method, ...words].join("_");
}

/**
 * The document with every operation named, `security: []` where a route asks for no credential, and the
 * throttle's 429 wherever a 401 can be answered.
 */
export function completeOperations(document: Record<string, unknown>): Record<string, unknown> {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths))
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operation.operationId ??= operationIdFor(method, path);
      operation.security ??= [];
      if (operation.responses) declareThrottle(operation.responses);
    }
  return document;
}

/**
 * The document of `app`'s routes; `listener` names whose document it is: the public listener's, or the operator's
 * (served on the admin listener: the admin and sandbox listeners' routes). Without it, every route's.
 */
export function describeApp(
  // biome-ignore lint/suspicious/noExplicitAny: any surface's variables
  app: OpenAPIHono<ServerEnv<any>>,
  listener?: "public" | "operator",
): Record<string, unknown> {
  const info = listener
    ? {
        ...OPENAPI_INFO,
        ...(listener === "operator"
          ? {
              servers: [
                {
                  url: "/",
                  description:
                    "the admin listener (adminUrl); /ops/v1 and /codehost/v1/git are on the sandbox listener (opsUrl)",
                },
              ],
            }
          : {}),
        info: {
          ...OPENAPI_INFO.info,
          title:
            listener === "public"
              ? "baton serve: the public listener's routes"
              : "baton serve: the admin and sandbox listeners' routes",
        },
      }
    : OPENAPI_INFO;
  const document = completeOperations(app.getOpenAPI31Document(info) as unknown as Record<string, unknown>);
  return listener ? dropUnusedSecuritySchemes(document) : document;
}

/**
 * A listener's document keeps only the security schemes its own operations name: every listener registers all of
 * them, and a scheme nothing uses is noise to a reader and a warning to linters (no-unused-components).
 */
function dropUnusedSecuritySchemes(document: Record<string, unknown>): Record<string, unknown> {
  const components = document.components as { securitySchemes?: Record<string, unknown> } | undefined;
  if (!components?.securitySchemes) return document;
  const used = new Set<string>();
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, Operation>>))
    for (const method of METHODS)
      for (const requirement of (item[method]?.security ?? []) as Record<string, unknown>[])
        for (const name of Object.keys(requirement)) used.add(name);
  components.securitySchemes = Object.fromEntries(
    Object.entries(components.securitySchemes).filter(([name]) => used.has(name)),
  );
  return document;
}
