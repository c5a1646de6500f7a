// What the agent did, kept apart from the conversation (issue 34, point 4): one row per turn that recorded any
// activity, its records as one JSON array (bounded by the engine, domain/tasks/activity-bound.ts), written in
// the transaction that ends the turn. `turn_seq` is the turn's own `seq`, so pages follow the turns' order even
// when a stopped turn's activity arrives after the next turn's.
import type { Migration } from "./index.js";

export const turnActivity: Migration = {
  version: 93,
  name: "turn-activity",
  async up(m) {
    await m.exec(`
CREATE TABLE task_turn_activity (
  turn_id TEXT PRIMARY KEY REFERENCES task_turns(id),
  task_id TEXT NOT NULL REFERENCES tasks(id),
  turn_seq INTEGER NOT NULL,
  turn_number INTEGER NOT NULL,
  records_json TEXT NOT NULL,
  record_count INTEGER NOT NULL,
  dropped_count INTEGER NOT NULL,
  chars INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX task_turn_activity_by_task ON task_turn_activity (task_id, turn_seq);
`);
  },
};
