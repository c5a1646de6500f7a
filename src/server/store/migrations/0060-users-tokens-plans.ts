// Users (one per e-mail across workspaces), personal access tokens that can be named, listed by their last four
// characters and revoked, and each workspace's plan, billing state and code-host / tracker connections.
import { randomBytes } from "node:crypto";
import type { Migration } from "./index.js";

export const usersTokensPlans: Migration = {
  version: 60,
  name: "users-tokens-plans",
  async up(m) {
    await m.exec(`
CREATE TABLE users (
  id TEXT PRIMARY KEY,
  email TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  codehost_login TEXT,
  created_at TEXT NOT NULL
);
`);
    // A user per e-mail already known. The ids and the instant come from here, not from SQL: SQLite's
    // randomblob/strftime have no PostgreSQL twin, and this way both engines make the same 'usr_' + 24 hex.
    const known = await m.all<{ email: string }>(
      "SELECT email FROM members UNION SELECT email FROM personal_access_tokens",
    );
    const createdAt = new Date().toISOString();
    for (const { email } of known) {
      await m.run("INSERT INTO users (id, email, name, created_at) VALUES (?, ?, ?, ?)", [
        `usr_${randomBytes(12).toString("hex")}`,
        email,
        email,
        createdAt,
      ]);
    }
    await m.exec(`
ALTER TABLE personal_access_tokens ADD COLUMN id TEXT;
ALTER TABLE personal_access_tokens ADD COLUMN last_four TEXT NOT NULL DEFAULT '';
ALTER TABLE personal_access_tokens ADD COLUMN revoked_at_ms INTEGER;
UPDATE personal_access_tokens SET id = 'pat_' || substr(token_hash, 1, 24) WHERE id IS NULL;
CREATE UNIQUE INDEX personal_access_tokens_id ON personal_access_tokens (id);
ALTER TABLE workspaces ADD COLUMN plan_name TEXT NOT NULL DEFAULT 'standard';
ALTER TABLE workspaces ADD COLUMN plan_concurrency INTEGER NOT NULL DEFAULT 3;
ALTER TABLE workspaces ADD COLUMN plan_queue_size INTEGER NOT NULL DEFAULT 10;
ALTER TABLE workspaces ADD COLUMN billing_state TEXT NOT NULL DEFAULT 'active';
ALTER TABLE workspaces ADD COLUMN codehost_connected INTEGER NOT NULL DEFAULT 1;
ALTER TABLE workspaces ADD COLUMN tracker_connected INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN tracker_identity TEXT;
ALTER TABLE members ADD COLUMN tracker_identity_bound INTEGER NOT NULL DEFAULT 0;
`);
  },
};
