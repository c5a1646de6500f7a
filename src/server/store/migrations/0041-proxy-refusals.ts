// The egress proxy's refusals per sandbox, so `baton op get` and the disclosure can show what was refused.
import type { Migration } from "./index.js";

export const proxyRefusalsSchema: Migration = {
  version: 41,
  name: "proxy-refusals",
  async up(m) {
    await m.exec(`
CREATE TABLE proxy_refusals (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  sandbox_id TEXT NOT NULL REFERENCES sandboxes(id),
  request_id TEXT NOT NULL,
  at TEXT NOT NULL,
  method TEXT NOT NULL,
  host TEXT NOT NULL,
  port INTEGER NOT NULL,
  code TEXT NOT NULL,
  status INTEGER NOT NULL,
  reason TEXT NOT NULL
);
CREATE INDEX proxy_refusals_sandbox ON proxy_refusals (sandbox_id, seq);
`);
  },
};
