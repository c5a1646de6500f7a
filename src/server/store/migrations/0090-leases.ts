// Leases on running work (issue 26): an operation or a task's turn that an instance runs records who runs it and
// until when; another instance takes it over once that lease runs out (the holder died), so nothing a dead
// instance held stays `running`. The lease is INTEGER milliseconds (BIGINT on PostgreSQL, through ddl.ts).
import type { Migration } from "./index.js";

export const leases: Migration = {
  version: 90,
  name: "leases",
  async up(m) {
    await m.exec(`
ALTER TABLE operations ADD COLUMN claimed_by TEXT;
ALTER TABLE operations ADD COLUMN lease_until_ms INTEGER;
ALTER TABLE task_turns ADD COLUMN claimed_by TEXT;
ALTER TABLE task_turns ADD COLUMN lease_until_ms INTEGER;
`);
  },
};
