// Workspaces, repositories and their environments, credentials, operations, the naming ledger and overlays.
// Expiry instants are integer milliseconds (compared in SQL); display timestamps are ISO strings.
import type { Migration } from "./index.js";

export const initialSchema: Migration = {
  version: 1,
  name: "initial",
  async up(m) {
    await m.exec(`
CREATE TABLE workspaces (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  rollout_repository_environments INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE TABLE members (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  email TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  PRIMARY KEY (workspace_id, email)
);
CREATE TABLE repositories (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  slug TEXT NOT NULL,
  connected INTEGER NOT NULL DEFAULT 1,
  current_version_id TEXT,
  UNIQUE (workspace_id, slug)
);
CREATE TABLE environment_versions (
  repository_id TEXT NOT NULL REFERENCES repositories(id),
  version_id TEXT NOT NULL,
  dockerfile_path TEXT,
  agent_instructions_path TEXT,
  startup_script_path TEXT,
  readiness_json TEXT NOT NULL,
  startup_timeout_seconds INTEGER,
  created_at TEXT NOT NULL,
  PRIMARY KEY (repository_id, version_id)
);
CREATE TABLE sandbox_env (
  repository_id TEXT NOT NULL REFERENCES repositories(id),
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (repository_id, name)
);
CREATE TABLE secrets (
  id TEXT PRIMARY KEY,
  repository_id TEXT NOT NULL REFERENCES repositories(id),
  name TEXT NOT NULL,
  value TEXT NOT NULL,
  allowed_hosts_json TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (repository_id, name)
);
CREATE TABLE engagements (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  overlay_revision INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
);
CREATE TABLE engagement_repositories (
  engagement_id TEXT NOT NULL REFERENCES engagements(id),
  repository_id TEXT NOT NULL REFERENCES repositories(id),
  position INTEGER NOT NULL,
  PRIMARY KEY (engagement_id, repository_id)
);
CREATE TABLE sandboxes (
  id TEXT PRIMARY KEY,
  engagement_id TEXT NOT NULL REFERENCES engagements(id),
  lease_hash TEXT NOT NULL UNIQUE,
  lease_expires_at_ms INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE turns (
  id TEXT PRIMARY KEY,
  engagement_id TEXT NOT NULL REFERENCES engagements(id),
  token_hash TEXT NOT NULL UNIQUE,
  expires_at_ms INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE ledger_entries (
  engagement_id TEXT NOT NULL REFERENCES engagements(id),
  position INTEGER NOT NULL,
  repository_id TEXT NOT NULL,
  repository TEXT NOT NULL,
  variable TEXT NOT NULL,
  assigned TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('live', 'reserved')),
  PRIMARY KEY (engagement_id, position),
  UNIQUE (engagement_id, assigned)
);
CREATE TABLE operations (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  engagement_id TEXT NOT NULL REFERENCES engagements(id),
  sandbox_id TEXT NOT NULL REFERENCES sandboxes(id),
  turn_id TEXT NOT NULL REFERENCES turns(id),
  repository_id TEXT NOT NULL REFERENCES repositories(id),
  repository TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('pending', 'running', 'succeeded', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  overlay_revision INTEGER,
  result_json TEXT,
  error_code TEXT,
  error_reason TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  finished_at TEXT
);
CREATE INDEX operations_open ON operations (engagement_id, seq) WHERE state IN ('pending', 'running');
CREATE TABLE idempotency_records (
  sandbox_id TEXT NOT NULL REFERENCES sandboxes(id),
  idempotency_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  operation_id TEXT NOT NULL REFERENCES operations(id),
  created_at TEXT NOT NULL,
  PRIMARY KEY (sandbox_id, idempotency_key)
);
CREATE TABLE overlay_revisions (
  engagement_id TEXT NOT NULL REFERENCES engagements(id),
  revision INTEGER NOT NULL,
  operation_id TEXT NOT NULL REFERENCES operations(id),
  document_json TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (engagement_id, revision)
);
`);
  },
};
