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
export {
  createSecretBox,
  ephemeralSecretBox,
  isSealed,
  loadOrCreateSecretKey,
  type SecretBox,
  secretScope,
} from "./domain/secrets/index.js";
export { applySeed } from "./domain/seed/apply-seed.js";
export { type SeedDocument, SeedDocumentSchema } from "./domain/seed/schema.js";
export { MIGRATIONS, type Migration } from "./store/migrations/index.js";
export { openDatabase } from "./store/open-store.js";
export type { Database } from "./store/sqlite.js";
export { inTransaction } from "./store/transaction.js";
export { HttpError } from "./surfaces/http/http-error.js";
export { createNodeServer, MAX_HEADER_BYTES } from "./surfaces/http/node-server.js";
export { createSurface, type ServerEnv } from "./surfaces/http/surface.js";
