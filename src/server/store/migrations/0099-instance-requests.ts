// Several instances, all the way (issue 36, point 5): what only a box's or a turn's own instance can do (run a
// command in the box, copy out of it, remove it, answer a manual turn) is asked of that instance through the
// store: the asking instance writes a request addressed to the owner's id and waits for the answer the owner
// writes back (adapters/instances/relay.ts). Rows live for one request; the asker deletes its row once answered
// or given up, and every instance deletes rows left past their deadline (an asker that died while waiting).
import type { Migration } from "./index.js";

export const instanceRequests: Migration = {
  version: 99,
  name: "instance-requests",
  async up(m) {
    await m.exec(`
CREATE TABLE instance_requests (
  id TEXT PRIMARY KEY,
  target_instance TEXT NOT NULL,
  kind TEXT NOT NULL,
  body TEXT NOT NULL,
  state TEXT NOT NULL,
  answer TEXT,
  created_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL
);
CREATE INDEX instance_requests_target ON instance_requests (target_instance, state);
`);
  },
};
