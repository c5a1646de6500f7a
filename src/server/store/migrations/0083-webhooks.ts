// Webhooks (issue 24): the code host reports a task's pull request closed without merging. The task keeps the
// pull request (`merged: false`), stops being `pr_open`, and the merge sweep stops asking about it.
import type { Migration } from "./index.js";

export const webhooks: Migration = {
  version: 83,
  name: "webhooks",
  async up(m) {
    await m.exec("ALTER TABLE tasks ADD COLUMN pr_closed INTEGER NOT NULL DEFAULT 0;");
  },
};
