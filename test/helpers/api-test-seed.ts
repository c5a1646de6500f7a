// The seed the in-process API and dashboard suites start from: fixtures/seeds/api.json (what the README's tour
// describes, and nothing more) plus the workspaces only tests need, kept in test/fixtures/seeds so that the tour's
// users never see them (issue 37 A12: dev@acme.test in four workspaces saved no default at a piped `baton login`).
// The test workspaces: ws_broke (billing inactive), ws_nohost (code host not connected) and ws_0middle (its id
// sorts first, its name between the other two; seeded last).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROJECT_ROOT } from "./cli.js";

export const API_SEED = join(PROJECT_ROOT, "fixtures", "seeds", "api.json");
export const API_TEST_WORKSPACES = join(
  PROJECT_ROOT,
  "test",
  "fixtures",
  "seeds",
  "api-test-workspaces.json",
);

/** The tour's seed document with the test workspaces after its own. */
export function apiTestSeed(): { workspaces: unknown[] } & Record<string, unknown> {
  const tour = JSON.parse(readFileSync(API_SEED, "utf8")) as { workspaces: unknown[] };
  const extra = JSON.parse(readFileSync(API_TEST_WORKSPACES, "utf8")) as { workspaces: unknown[] };
  return { ...tour, workspaces: [...tour.workspaces, ...extra.workspaces] };
}
