// Shared rate limits (issue 26): the API's and MCP's per-token budgets hold across every instance on one
// PostgreSQL, so their admitted hits live in the store (store/rate-hits.ts). SQLite, one instance, keeps them in
// memory (domain/limits/create-limiter.ts), but has the table too: one schema on both engines.
import { RATE_HITS_DDL } from "../rate-hits.js";
import type { Migration } from "./index.js";

export const rateHits: Migration = {
  version: 91,
  name: "rate-hits",
  async up(m) {
    await m.exec(RATE_HITS_DDL);
  },
};
