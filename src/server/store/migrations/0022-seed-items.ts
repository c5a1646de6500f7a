// What each seed application last set, item by item, so re-seeding changes only what the seed file changed and
// never undoes or deletes what the service changed since (src/server/domain/seed/apply-seed.ts). `applied_json` holds
// the seed's field values; a secret's value only as a salted scrypt fingerprint, never the value.
import type { Migration } from "./index.js";

export const seedItemsSchema: Migration = {
  version: 22,
  name: "seed-items",
  async up(m) {
    await m.exec(`
CREATE TABLE seed_items (
  kind TEXT NOT NULL,
  scope TEXT NOT NULL,   -- the workspace or repository id the item belongs to ('' for a workspace)
  key TEXT NOT NULL,
  applied_json TEXT NOT NULL,
  applied_at TEXT NOT NULL,
  PRIMARY KEY (kind, scope, key)
);
`);
  },
};
