// Capability requests, their evidence, the e-mail outbox (one row per notification and recipient) and
// personal access tokens for the workspace routes. Version 20 leaves 2-19 to the operations schema.
import type { Migration } from "./index.js";

export const capabilityRequestsSchema: Migration = {
  version: 20,
  name: "capability-requests",
  async up(m) {
    await m.exec(`
CREATE TABLE capability_requests (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  repository_id TEXT NOT NULL REFERENCES repositories(id),
  repository TEXT NOT NULL,
  kind TEXT NOT NULL,            -- older rows may hold a legacy label; normalised on read
  target TEXT NOT NULL,          -- normalised: lowercase ASCII hostname, or the resource name as given
  target_form TEXT NOT NULL CHECK (target_form IN ('host', 'name')),
  reason TEXT NOT NULL,
  status TEXT NOT NULL,
  access_supplied INTEGER NOT NULL DEFAULT 0,
  bound_secret_id TEXT,
  last_outcome TEXT,
  last_outcome_status INTEGER,
  last_outcome_at TEXT,
  sandbox_id TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX capability_requests_by_target ON capability_requests (workspace_id, repository_id, target);
CREATE INDEX capability_requests_by_secret ON capability_requests (bound_secret_id);
CREATE TABLE capability_evidence (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  request_id TEXT NOT NULL REFERENCES capability_requests(id),
  outcome TEXT NOT NULL,
  http_status INTEGER,
  status_before TEXT NOT NULL,
  status_after TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE capability_idempotency (
  sandbox_id TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  response_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (sandbox_id, idempotency_key)
);
CREATE TABLE notifications (
  id TEXT PRIMARY KEY,
  request_id TEXT NOT NULL REFERENCES capability_requests(id),
  kind TEXT NOT NULL CHECK (kind IN ('new_request', 'repair')),
  subject TEXT NOT NULL,
  body_text TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE notification_deliveries (
  notification_id TEXT NOT NULL REFERENCES notifications(id),
  recipient TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'sent', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at_ms INTEGER NOT NULL,
  last_error TEXT,
  sent_at TEXT,
  PRIMARY KEY (notification_id, recipient)
);
CREATE INDEX notification_deliveries_due ON notification_deliveries (next_attempt_at_ms) WHERE state = 'pending';
CREATE TABLE personal_access_tokens (
  token_hash TEXT PRIMARY KEY,
  email TEXT NOT NULL,
  name TEXT NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
`);
  },
};
