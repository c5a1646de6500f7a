// The status table in docs/api.md is the engine's: every row of STATUS_TRANSITIONS, and nothing else, in the same order.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { STATUS_TRANSITIONS } from "../../../../../src/server/domain/tasks/statuses.js";
import { PROJECT_ROOT } from "../../../../helpers/cli.js";

describe("docs/api.md status table", () => {
  it("lists exactly the transitions the engine allows", () => {
    const readme = readFileSync(join(PROJECT_ROOT, "docs", "api.md"), "utf8");
    const start = readme.indexOf("### Task statuses and turns");
    const section = readme.slice(start, readme.indexOf("\n### ", start + 1));
    const rows = section
      .split("\n")
      .filter((line) => /^\| (\(new task\)|`)/.test(line))
      .map((line) => line.split("|").map((cell) => cell.trim()))
      .map(([, from, event, to]) => ({
        from: from === "(new task)" ? "new" : [...from!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]),
        event: event!.replaceAll("`", ""),
        to: to!.replaceAll("`", ""),
      }));
    expect(rows).toEqual(STATUS_TRANSITIONS.map(({ from, event, to }) => ({ from, event, to })));
  });
});
