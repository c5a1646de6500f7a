// Issues of the local tracker and code-host implementations (seeded), the local code host's pull requests, and
// the scripted agent's rules.
import type { Migration } from "./index.js";

export const ticketsAndAgent: Migration = {
  version: 62,
  name: "tickets-agent",
  async up(m) {
    await m.exec(`
CREATE TABLE tickets (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  source TEXT NOT NULL CHECK (source IN ('tracker', 'codehost')),
  identifier TEXT NOT NULL,
  repo TEXT,
  number INTEGER,
  title TEXT,
  context TEXT NOT NULL DEFAULT '',
  state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
  assignee TEXT,
  is_pull_request INTEGER NOT NULL DEFAULT 0,
  url TEXT NOT NULL,
  task_id TEXT,
  created_at TEXT NOT NULL,
  UNIQUE (workspace_id, source, identifier)
);
CREATE TABLE pull_requests (
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  repo TEXT NOT NULL,
  number INTEGER NOT NULL,
  branch TEXT NOT NULL,
  task_id TEXT NOT NULL,
  url TEXT NOT NULL,
  merged INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, repo, number),
  UNIQUE (workspace_id, repo, branch)
);
CREATE TABLE agent_rules (
  position INTEGER PRIMARY KEY,
  rule_json TEXT NOT NULL
);
`);
  },
};
