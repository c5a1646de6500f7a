// The route table. Another area registers its routes by adding one factory to this list.
import type { ServerDeps } from "../deps.js";
import type { Route } from "../http/router.js";
import { adminRoutes } from "./admin.js";
import { capabilityRoutes } from "./capability.js";
import { healthRoutes } from "./health.js";
import { operationRoutes } from "./operations.js";

export type RouteFactory = (deps: ServerDeps) => Route[];

export const ROUTE_FACTORIES: readonly RouteFactory[] = [
  healthRoutes,
  operationRoutes,
  adminRoutes,
  capabilityRoutes,
];

export function buildRoutes(deps: ServerDeps, factories: readonly RouteFactory[] = ROUTE_FACTORIES): Route[] {
  return factories.flatMap((factory) => factory(deps));
}
