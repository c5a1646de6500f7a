// The OpenAPI 3.1 document, generated from the composed app's route definitions and their zod schemas (nothing
// is assembled by hand). `openapi/baton-ops.json` is `buildOpenApiDocument()`'s output
// (scripts/generate-openapi.mjs writes it; a test compares).
import type { OpenAPIHono } from "@hono/zod-openapi";
import { pino } from "pino";
import { composeHttpApp } from "../../app.js";
import type { ServerDeps } from "../../deps.js";
import type { CapabilityRuntime } from "../../domain/capability/runtime.js";
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

/** Composes the app only to describe it: no route runs, so touching anything but the logger is a bug. */
export function buildOpenApiDocument(): Record<string, unknown> {
  const logger = pino({ level: "silent" });
  const unused = new Proxy(
    {},
    {
      get(_target, name) {
        if (name === "logger") return logger;
        throw new Error(`describing the service ran a route (it touched ${String(name)})`);
      },
    },
  );
  return describeApp(composeHttpApp(unused as ServerDeps, unused as CapabilityRuntime));
}
