// The engine's own bound on a turn's activity (issue 34, point 4: "bounded (a few MiB a turn; the oldest dropped
// with a marker)"), whatever the adapter sent: the records in order, within the budget, one marker ahead.
import { describe, expect, it } from "vitest";
import type { ActivityRecord } from "../../../../../src/server/adapters/agents/port.js";
import { LIMITS } from "../../../../../src/server/domain/limits.js";
import { boundActivity, DROPPED_KIND } from "../../../../../src/server/domain/tasks/activity-bound.js";

const record = (n: number, text = "x"): ActivityRecord => ({
  at: `2026-11-28T10:00:${String(n).padStart(2, "0")}.000Z`,
  kind: "tool_call",
  data: { toolCallId: `t${n}`, title: text },
});
const sizeOf = (records: readonly ActivityRecord[]) => JSON.stringify(records).length;
const parse = (json: string) => JSON.parse(json) as ActivityRecord[];

describe("boundActivity", () => {
  it("a turn that recorded nothing keeps no row", () => {
    expect(boundActivity([])).toBeNull();
  });

  it("records within the budget are kept whole and in order, with no marker", () => {
    const records = [record(1), record(2), record(3)];
    const kept = boundActivity(records, 10_000)!;
    expect(parse(kept.json)).toEqual(records);
    expect(kept).toMatchObject({ records: 3, dropped: 0 });
  });

  it.each([
    // [records, budget, kept ids]
    [5, 1_000, ["t1", "t2", "t3", "t4", "t5"]],
    [5, 700, ["t3", "t4", "t5"]],
    [5, 500, ["t5"]],
    [5, 300, []],
  ])(
    "of %i records of ~100 characters under %i, the newest that fit are kept behind a marker",
    (n, max, ids) => {
      const records = Array.from({ length: n }, (_, i) => record(i + 1, "y".repeat(40)));
      const kept = boundActivity(records, max)!;
      const out = parse(kept.json);
      expect(kept.json.length).toBeLessThanOrEqual(max);
      const body = out[0]?.kind === DROPPED_KIND ? out.slice(1) : out;
      expect(body.map((r) => r.data.toolCallId)).toEqual(ids);
      if (ids.length < n) {
        expect(out[0]).toMatchObject({ kind: DROPPED_KIND, data: { records: n - ids.length } });
        expect(kept.dropped).toBe(n - ids.length);
      }
    },
  );

  it("the adapter's own marker is merged into one: its count plus what the engine dropped", () => {
    const adapterMarker: ActivityRecord = {
      at: "2026-11-28T10:00:00.000Z",
      kind: DROPPED_KIND,
      data: { records: 7, reason: "the adapter's" },
    };
    const records = [adapterMarker, record(1, "z".repeat(200)), record(2, "z".repeat(200))];
    const kept = boundActivity(records, 600)!;
    const out = parse(kept.json);
    expect(out.filter((r) => r.kind === DROPPED_KIND)).toHaveLength(1);
    expect(out[0]!.data.records).toBe(8);
    expect(out.slice(1).map((r) => r.data.toolCallId)).toEqual(["t2"]);
    expect(kept).toMatchObject({ records: 1, dropped: 8 });
  });

  it("an adapter's marker with nothing dropped here is kept as it counts", () => {
    const marker: ActivityRecord = { at: "a", kind: DROPPED_KIND, data: { records: 3, reason: "r" } };
    const kept = boundActivity([marker, record(1)], 10_000)!;
    expect(parse(kept.json)[0]!.data.records).toBe(3);
    expect(kept.dropped).toBe(3);
  });

  it("the default budget is the service's 4 MiB a turn, and a turn just over it loses only its oldest", () => {
    expect(LIMITS.activityMaxChars).toBe(4 * 1024 * 1024);
    const big = "b".repeat(64 * 1024);
    const records = Array.from({ length: 70 }, (_, i) => record(i, big));
    expect(sizeOf(records)).toBeGreaterThan(LIMITS.activityMaxChars);
    const kept = boundActivity(records)!;
    expect(kept.json.length).toBeLessThanOrEqual(LIMITS.activityMaxChars);
    const out = parse(kept.json);
    expect(out.at(-1)!.data.toolCallId).toBe("t69");
    expect(kept.records + kept.dropped).toBe(70);
    expect(kept.dropped).toBeGreaterThan(0);
  });
});
