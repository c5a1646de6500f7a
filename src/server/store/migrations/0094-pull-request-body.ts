// The local code host keeps what a pull request says, as a real one does: its title, its description (the
// disclosure the service renders at the end of an ACP turn) and whether it is a draft. Rows opened before
// have none of these: no title or body recorded, not a draft.
import type { Migration } from "./index.js";

export const pullRequestBody: Migration = {
  version: 94,
  name: "pull-request-body",
  async up(m) {
    await m.exec(`
ALTER TABLE pull_requests ADD COLUMN title TEXT;
ALTER TABLE pull_requests ADD COLUMN body TEXT;
ALTER TABLE pull_requests ADD COLUMN draft INTEGER NOT NULL DEFAULT 0;
`);
  },
};
