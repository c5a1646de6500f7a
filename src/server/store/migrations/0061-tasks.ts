// The task engine's tables: tasks, their turns (one open at a time), the conversation, and the public API's
// idempotency records. Integer `seq` columns give a stable order; `*_ms` columns are compared in SQL.
import type { Migration } from "./index.js";

export const tasksSchema: Migration = {
  version: 61,
  name: "tasks",
  async up(m) {
    await m.exec(`
CREATE TABLE tasks (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  source TEXT NOT NULL,
  status TEXT NOT NULL,
  paused_on TEXT CHECK (paused_on IN ('access', 'billing')),
  title TEXT,
  repo TEXT,
  created_by TEXT NOT NULL REFERENCES users(id),
  ticket_id TEXT,
  open_turn_id TEXT,
  pr_number INTEGER,
  pr_url TEXT,
  pr_branch TEXT,
  pr_merged INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  last_activity_at TEXT NOT NULL,
  last_activity_ms INTEGER NOT NULL
);
CREATE INDEX tasks_by_activity ON tasks (workspace_id, last_activity_ms DESC, seq DESC);
CREATE INDEX tasks_by_status ON tasks (workspace_id, status, last_activity_ms DESC, seq DESC);
CREATE INDEX tasks_open_api ON tasks (workspace_id, created_by)
  WHERE source = 'api' AND status IN ('pending', 'implementing');
CREATE INDEX tasks_pr_open ON tasks (status) WHERE status = 'pr_open';
CREATE TABLE task_turns (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  task_id TEXT NOT NULL REFERENCES tasks(id),
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  state TEXT NOT NULL
    CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'paused', 'refused')),
  attempts INTEGER NOT NULL DEFAULT 0,
  waited INTEGER NOT NULL DEFAULT 0,
  closing_entry_id TEXT,
  outcome_code TEXT,
  created_at TEXT NOT NULL,
  started_at TEXT,
  ended_at TEXT
);
CREATE INDEX task_turns_by_task ON task_turns (task_id, seq);
CREATE INDEX task_turns_queued ON task_turns (workspace_id, seq) WHERE state = 'queued';
CREATE INDEX task_turns_running ON task_turns (workspace_id) WHERE state = 'running';
CREATE TABLE task_messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  task_id TEXT NOT NULL REFERENCES tasks(id),
  message_id TEXT,
  role TEXT NOT NULL CHECK (role IN ('user', 'agent', 'platform')),
  kind TEXT NOT NULL CHECK (kind IN ('message', 'response', 'clarify', 'error')),
  body TEXT NOT NULL,
  author_id TEXT,
  -- user messages: 0 saved, 1 handed to the engine; NULL for agent and platform entries
  handed_over INTEGER,
  -- user messages: the turn that answers it (NULL while it waits for the running turn to end)
  turn_id TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX task_messages_by_task ON task_messages (task_id, seq);
CREATE INDEX task_messages_unhanded ON task_messages (task_id, seq) WHERE handed_over = 0;
CREATE INDEX task_messages_waiting ON task_messages (task_id, seq) WHERE handed_over = 1 AND turn_id IS NULL;
CREATE TABLE api_idempotency (
  user_id TEXT NOT NULL REFERENCES users(id),
  idempotency_key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  task_id TEXT NOT NULL REFERENCES tasks(id),
  message_id TEXT NOT NULL,
  message_entry_id TEXT NOT NULL,
  response_json TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, idempotency_key)
);
`);
  },
};
