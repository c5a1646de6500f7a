// Several instances on one store (issue 26): the webhook queue, the issue-reply outbox and the e-mail outbox are
// claimed with a lease (store/claims.ts), so each item is worked by one instance at a time and a dead claimer's
// items are taken over once its lease runs out. The e-mail outbox's rows get a one-column key for the claim;
// issue posts keep their message's order. Each sandbox box records the instance that runs its driver and the
// machine it runs on, with a lease that instance renews, so the next instance on that machine adopts a dead
// one's boxes and never touches a live one's.
import type { Migration } from "./index.js";

// The columns of store/claims.ts (CLAIM_COLUMNS_DDL), in the migrations' SQLite dialect: INTEGER becomes BIGINT on
// PostgreSQL, so both engines' schemas compare equal.
const addClaimColumns = (table: string) =>
  `ALTER TABLE ${table} ADD COLUMN claimed_by TEXT;\nALTER TABLE ${table} ADD COLUMN lease_until_ms INTEGER;`;

export const processedOnce: Migration = {
  version: 92,
  name: "processed-once",
  async up(m) {
    await m.exec(`
${addClaimColumns("webhook_deliveries")}
${addClaimColumns("issue_posts")}
ALTER TABLE issue_posts ADD COLUMN message_seq INTEGER;
UPDATE issue_posts SET message_seq = (SELECT m.seq FROM task_messages m WHERE m.id = issue_posts.entry_id);
${addClaimColumns("notification_deliveries")}
ALTER TABLE notification_deliveries ADD COLUMN id TEXT;
UPDATE notification_deliveries SET id = notification_id || ' ' || recipient;
CREATE UNIQUE INDEX notification_deliveries_id ON notification_deliveries (id);
ALTER TABLE sandbox_boxes ADD COLUMN owner_instance TEXT;
ALTER TABLE sandbox_boxes ADD COLUMN owner_machine TEXT;
ALTER TABLE sandbox_boxes ADD COLUMN owner_lease_until_ms INTEGER;
`);
  },
};
