// Real sandboxes (issue 12): the box behind a sandbox (driver, reference, image, lifecycle state), the image
// pinned per engagement, every lifecycle transition, and what `.batonrc.json` applied at creation.
import type { Migration } from "./index.js";

export const sandboxBoxesSchema: Migration = {
  version: 50,
  name: "sandbox-boxes",
  async up(m) {
    await m.exec(`
CREATE TABLE sandbox_boxes (
  sandbox_id TEXT PRIMARY KEY REFERENCES sandboxes(id),
  workspace_id TEXT NOT NULL REFERENCES workspaces(id),
  engagement_id TEXT NOT NULL REFERENCES engagements(id),
  driver TEXT NOT NULL,
  box_ref TEXT,
  image TEXT NOT NULL,
  repository TEXT,
  state TEXT NOT NULL CHECK (state IN ('running', 'stopped', 'archived', 'eligible_for_deletion', 'deleted')),
  last_activity_at_ms INTEGER NOT NULL,
  state_changed_at_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL,
  reach_json TEXT NOT NULL DEFAULT '{}',
  batonrc_json TEXT,
  pre_clone_json TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX sandbox_boxes_engagement ON sandbox_boxes (engagement_id, created_at_ms);
CREATE INDEX sandbox_boxes_live ON sandbox_boxes (state) WHERE state <> 'deleted';
CREATE TABLE engagement_images (
  engagement_id TEXT PRIMARY KEY REFERENCES engagements(id),
  image TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('default', 'snapshot_name', 'request')),
  pinned_at_ms INTEGER NOT NULL
);
CREATE TABLE sandbox_transitions (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  sandbox_id TEXT NOT NULL REFERENCES sandboxes(id),
  from_state TEXT,
  to_state TEXT NOT NULL,
  reason TEXT NOT NULL,
  at_ms INTEGER NOT NULL
);
CREATE INDEX sandbox_transitions_sandbox ON sandbox_transitions (sandbox_id, seq);
`);
  },
};
