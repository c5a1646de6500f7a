// A delegated issue has one task: issues now come through the tracker and code-host ports, and the service's own
// record of which issues its tasks work on is this index (the ports' "in progress" can lag or be missing).
import type { Migration } from "./index.js";

export const oneTaskPerTicket: Migration = {
  version: 63,
  name: "one-task-per-ticket",
  async up(m) {
    await m.exec(
      "CREATE UNIQUE INDEX tasks_by_ticket ON tasks (workspace_id, source, ticket_id) WHERE ticket_id IS NOT NULL;",
    );
  },
};
