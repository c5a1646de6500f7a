// The coding agent a workspace's owners chose on the dashboard's settings page (issue 34, point 1): a catalog
// agent's id (`codex`), or NULL for the service's default (`baton serve --agent …`). The id is checked against the
// agents the service can run when it is written; a turn whose chosen agent the service no longer runs fails saying so.
import type { Migration } from "./index.js";

export const workspaceAgent: Migration = {
  version: 95,
  name: "workspace-agent",
  async up(m) {
    await m.exec("ALTER TABLE workspaces ADD COLUMN agent_id TEXT;");
  },
};
