// The service's OpenAPI document, built by composing the whole app and describing it: `openapi/baton-ops.json` is
// `buildOpenApiDocument()`'s output (scripts/generate-openapi.mjs writes it; a test compares).
import { pino } from "pino";
import { composeHttpApp } from "./app.js";
import type { ServerDeps } from "./deps.js";
import type { CapabilityRuntime } from "./domain/capability/runtime.js";
import { describeApp } from "./surfaces/openapi/document.js";

/**
 * Composes the app only to describe it: no route runs, so touching anything but what composing reads (the logger,
 * and the trusted fronts the public listener's middleware is built with: none) is a bug.
 */
export function buildOpenApiDocument(): Record<string, unknown> {
  const logger = pino({ level: "silent" });
  const unused = new Proxy(
    {},
    {
      get(_target, name) {
        if (name === "logger") return logger;
        if (name === "trustedProxies") return undefined;
        throw new Error(`describing the service ran a route (it touched ${String(name)})`);
      },
    },
  );
  return describeApp(composeHttpApp(unused as ServerDeps, unused as CapabilityRuntime));
}
