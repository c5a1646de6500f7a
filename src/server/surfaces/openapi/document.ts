// The OpenAPI 3.1 document, generated from the composed app's route definitions and their zod schemas (nothing
// is assembled by hand): describeApp here; composing the whole app to describe it is the composition's
// (src/server/openapi-document.ts).
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { ServerEnv } from "../http/surface.js";

export const OPENAPI_INFO = {
  openapi: "3.1.0",
  info: {
    title: "baton serve: operations transport, admin API and member routes",
    version: "1.0.0",
    description:
      "The service's HTTP API. The public API is in docs/api.md; the operations transport in docs/agents.md; the listeners and the admin API in docs/operators.md.",
  },
};

// biome-ignore lint/suspicious/noExplicitAny: any surface's variables
export function describeApp(app: OpenAPIHono<ServerEnv<any>>): Record<string, unknown> {
  return app.getOpenAPI31Document(OPENAPI_INFO) as unknown as Record<string, unknown>;
}
