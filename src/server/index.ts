// The reference orchestrator's public face.
export {
  composeHttpApp,
  composeListeners,
  createServerApp,
  type ListenerName,
  type ServerApp,
  type ServerAppOptions,
  type ServerListeners,
} from "./app.js";
export type { ServerDeps } from "./deps.js";
export { HttpError } from "./http/http-error.js";
export { createNodeServer, MAX_HEADER_BYTES } from "./http/node-server.js";
export { createSurface, type ServerEnv } from "./http/surface.js";
export {
  createSecretBox,
  ephemeralSecretBox,
  isSealed,
  loadOrCreateSecretKey,
  type SecretBox,
  secretScope,
} from "./secrets/index.js";
export { applySeed } from "./seed/apply-seed.js";
export { type SeedDocument, SeedDocumentSchema } from "./seed/schema.js";
export { MIGRATIONS, type Migration } from "./store/migrations/index.js";
export { openDatabase } from "./store/open-store.js";
export type { Database } from "./store/sqlite.js";
export { inTransaction } from "./store/transaction.js";
