// Assembles the service: store, worker, waiters and the route table into one fetch-style handler.
import type { Logger } from "pino";
import type { CapabilitySettings } from "./capability/settings.js";
import type { ServerDeps } from "./deps.js";
import { createRouter, type Handler } from "./http/router.js";
import { OperationWaiters } from "./operations/waiters.js";
import { OperationWorker } from "./operations/worker.js";
import { buildRoutes, type RouteFactory } from "./routes/index.js";
import type { Database } from "./store/sqlite.js";

export interface ServerAppOptions {
  db: Database;
  logger: Logger;
  adminToken?: string | undefined;
  now?: () => Date;
  activationDelayMs?: number;
  routeFactories?: readonly RouteFactory[];
  capability?: CapabilitySettings | undefined;
}

export interface ServerApp {
  handle: Handler;
  deps: ServerDeps;
  /** Resets interrupted operations and resumes open ones. Call once the service is ready to serve. */
  start(): void;
  /** Wakes long-polls, lets the operation in hand finish; the caller closes the database afterwards. */
  stop(): Promise<void>;
}

export function createServerApp(options: ServerAppOptions): ServerApp {
  const now = options.now ?? (() => new Date());
  const waiters = new OperationWaiters();
  const worker = new OperationWorker({
    db: options.db,
    now,
    logger: options.logger,
    waiters,
    ...(options.activationDelayMs ? { activationDelayMs: options.activationDelayMs } : {}),
  });
  const stopHooks: (() => Promise<void>)[] = [];
  const deps: ServerDeps = {
    db: options.db,
    now,
    logger: options.logger,
    worker,
    waiters,
    adminToken: options.adminToken,
    capability: options.capability,
    onStop: (stop) => stopHooks.push(stop),
  };
  const handle = createRouter(buildRoutes(deps, options.routeFactories), options.logger);
  return {
    handle,
    deps,
    start: () => worker.recover(),
    stop: async () => {
      waiters.wakeAll();
      await worker.stop();
      waiters.wakeAll();
      await Promise.all(stopHooks.map((stop) => stop()));
    },
  };
}
