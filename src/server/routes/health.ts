// Liveness probe and the machine-readable description of the transport.
import { ROUTE_PATTERNS } from "../../transport/wire.js";
import type { ServerDeps } from "../deps.js";
import { json } from "../http/json.js";
import type { Route } from "../http/router.js";

export function healthRoutes(_deps: ServerDeps): Route[] {
  return [
    { method: "GET", pattern: ROUTE_PATTERNS.health, handle: () => json(200, { ok: true }) },
    {
      method: "GET",
      pattern: ROUTE_PATTERNS.openapi,
      handle: async () => {
        const { buildOpenApiDocument } = await import("../openapi/document.js");
        return json(200, buildOpenApiDocument());
      },
    },
  ];
}
