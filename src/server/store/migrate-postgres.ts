// Placeholder until the migrations' runner on PostgreSQL lands (branch i26-migrations): migrate-store calls it to
// bring an empty database to this build's schema.
import { ConfigError } from "../../errors.js";
import type { Store } from "./store.js";

export async function migratePostgres(_store: Store): Promise<number[]> {
  throw new ConfigError("this build cannot create Baton's schema on PostgreSQL yet");
}
