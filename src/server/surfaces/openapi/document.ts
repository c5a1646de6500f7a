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

type Operation = { operationId?: string; security?: unknown[] };

/**
 * `GET /v1/workspaces/{workspaceId}/tasks` is `get_v1_workspaces_workspaceId_tasks`: unique because a method and
 * a path are, stable while the route is, and readable in a generated client.
 */
export function operationIdFor(method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  return [method, ...words].join("_");
}

/** The document with every operation named, and `security: []` where a route asks for no credential. */
export function completeOperations(document: Record<string, unknown>): Record<string, unknown> {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths))
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operation.operationId ??= operationIdFor(method, path);
      operation.security ??= [];
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
  return completeOperations(app.getOpenAPI31Document(info) as unknown as Record<string, unknown>);
}
