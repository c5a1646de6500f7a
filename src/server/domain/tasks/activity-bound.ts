// What the engine keeps of a turn's activity (pure): the adapter's records in their order, within the turn's
// budget of JSON characters, the oldest dropped behind one `dropped` marker. The ACP adapter already bounds its
// log the same way; this is the engine's own guarantee for any adapter, and it merges the adapter's marker.
import type { ActivityRecord } from "../../adapters/agents/port.js";
import { LIMITS } from "../limits.js";

export const DROPPED_KIND = "dropped";

export interface KeptActivity {
  /** The records as a JSON array, the marker first when any were dropped. */
  json: string;
  /** Records kept (the marker not counted). */
  records: number;
  /** Records dropped, by the adapter and here. */
  dropped: number;
}

/** Room kept for the marker itself within the budget. */
const MARKER_ROOM = 300;

/** The records to keep, or null when the turn recorded nothing. */
export function boundActivity(
  records: readonly ActivityRecord[],
  maxChars: number = LIMITS.activityMaxChars,
): KeptActivity | null {
  const marker = records[0]?.kind === DROPPED_KIND ? records[0] : undefined;
  let dropped = marker ? droppedCount(marker) : 0;
  const kept = marker ? records.slice(1) : [...records];
  const sizes = kept.map((record) => JSON.stringify(record).length + 1);
  let total = sizes.reduce((sum, size) => sum + size, 0);
  const budget = Math.max(0, maxChars - MARKER_ROOM);
  let first = 0;
  while (first < kept.length && total > budget) {
    total -= sizes[first]!;
    first += 1;
    dropped += 1;
  }
  const left = kept.slice(first);
  if (left.length === 0 && dropped === 0) return null;
  const out: ActivityRecord[] =
    dropped > 0 ? [droppedMarker(left[0]?.at ?? marker?.at ?? "", dropped, maxChars), ...left] : left;
  return { json: JSON.stringify(out), records: left.length, dropped };
}

function droppedCount(marker: ActivityRecord): number {
  const count = marker.data.records;
  return typeof count === "number" && Number.isSafeInteger(count) && count > 0 ? count : 1;
}

function droppedMarker(at: string, records: number, maxChars: number): ActivityRecord {
  return {
    at,
    kind: DROPPED_KIND,
    data: {
      records,
      reason: `the turn's activity passed ${maxChars} characters: its oldest records were dropped`,
    },
  };
}
