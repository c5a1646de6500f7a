// The real code host and tracker (issue 24): code-host App installations and the repositories each one gives the
// workspace, tracker connections (an OAuth token per workspace, sealed like repository secrets) and each member's
// own tracker token, the single-use `state` of the install flows (hash only), webhook deliveries queued durably
// and deduplicated by their delivery id, the agent's replies posted back to an issue (an outbox over the
// conversation), comments the local adapters hold, and the code-host issue number of a task started from one.
import type { Migration } from "./index.js";

export const codehostTracker: Migration = {
  version: 80,
  name: "codehost-tracker",
  async up(m) {
    await m.exec(`
CREATE TABLE codehost_installations (
  installation_id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  account_login TEXT NOT NULL,
  credential_id TEXT NOT NULL UNIQUE,
  suspended INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE INDEX codehost_installations_workspace ON codehost_installations (workspace_id);
ALTER TABLE repositories ADD COLUMN codehost_installation_id TEXT;
CREATE TABLE tracker_connections (
  workspace_id TEXT PRIMARY KEY REFERENCES workspaces(id),
  organization_id TEXT NOT NULL UNIQUE,
  organization_name TEXT NOT NULL,
  agent_user_id TEXT,
  token_sealed TEXT,
  refresh_sealed TEXT,
  expires_at_ms INTEGER,
  created_at TEXT NOT NULL
);
CREATE TABLE tracker_member_tokens (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  user_id TEXT NOT NULL,
  token_sealed TEXT NOT NULL,
  refresh_sealed TEXT,
  expires_at_ms INTEGER,
  PRIMARY KEY (workspace_id, user_id)
);
CREATE TABLE install_states (
  state_hash TEXT PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('codehost', 'tracker')),
  workspace_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  verifier_sealed TEXT,
  expires_at_ms INTEGER NOT NULL,
  used_at_ms INTEGER
);
CREATE TABLE webhook_deliveries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  source TEXT NOT NULL CHECK (source IN ('codehost', 'tracker')),
  delivery_id TEXT NOT NULL,
  event TEXT NOT NULL,
  payload TEXT NOT NULL,
  received_at_ms INTEGER NOT NULL,
  state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'done', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at_ms INTEGER NOT NULL DEFAULT 0,
  outcome TEXT,
  UNIQUE (source, delivery_id)
);
CREATE INDEX webhook_deliveries_queued ON webhook_deliveries (state, next_attempt_at_ms) WHERE state = 'queued';
CREATE TABLE issue_posts (
  entry_id TEXT PRIMARY KEY,
  task_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'posted', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at_ms INTEGER NOT NULL DEFAULT 0,
  posted_at TEXT
);
CREATE INDEX issue_posts_queued ON issue_posts (state, next_attempt_at_ms) WHERE state = 'queued';
CREATE TABLE ticket_comments (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace_id TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('tracker', 'codehost')),
  issue_key TEXT NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL
);
ALTER TABLE tasks ADD COLUMN ticket_number INTEGER;
`);
  },
};
