// The `/ops/v1` surface: what a sandbox calls with its turn token and lease (operations, capability requests).

import type { CapabilityRuntime } from "../../domain/capability/runtime.js";
import { mapDomainErrors } from "../http/domain-errors.js";
import { createSurface } from "../http/surface.js";
import { capabilityRoutes } from "./capability.js";
import type { OpsDeps } from "./deps.js";
import { OPS_DOMAIN_ANSWERS } from "./domain-errors.js";
import { operationRoutes } from "./operations.js";
import { proxyRefusalRoutes } from "./proxy-refusals.js";

export function createOpsApp(deps: OpsDeps, rt: CapabilityRuntime) {
  const app = createSurface();
  app.onError(mapDomainErrors(OPS_DOMAIN_ANSWERS));
  app.route("/", operationRoutes(deps));
  app.route("/", capabilityRoutes(deps, rt));
  app.route("/", proxyRefusalRoutes(deps));
  return app;
}
