// The reference orchestrator's public face.
export { createServerApp, type ServerApp, type ServerAppOptions } from "./app.js";
export type { ServerDeps } from "./deps.js";
export { HttpError } from "./http/http-error.js";
export type { Route, RouteContext } from "./http/router.js";
export { createNodeServer } from "./node-adapter.js";
export { ROUTE_FACTORIES, type RouteFactory } from "./routes/index.js";
export { applySeed } from "./seed/apply-seed.js";
export { type SeedDocument, SeedDocumentSchema } from "./seed/schema.js";
export { MIGRATIONS, type Migration } from "./store/migrations/index.js";
export { openDatabase } from "./store/open-store.js";
export type { Database } from "./store/sqlite.js";
export { inTransaction } from "./store/transaction.js";
