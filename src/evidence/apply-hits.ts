// Merges hits (overlapping ones included) into disjoint ranges and replaces each with one marker.
import type { Hit } from "./find-hits.js";

/** Kinds that describe context rather than a token format; a specific kind names the same text better. */
const GENERIC_KINDS = new Set([
  "secret_assignment",
  "authorization_header",
  "basic_auth",
  "high_entropy_string",
]);

const rank = (hit: Hit) => (hit.known ? 0 : GENERIC_KINDS.has(hit.label) ? 2 : 1);

/** Earliest first, then longest, then known values before token formats before generic context. */
export function compareHits(a: Hit, b: Hit): number {
  return a.start - b.start || b.end - a.end || rank(a) - rank(b);
}

export interface MergedRange {
  start: number;
  end: number;
  label: string;
}

/** Sorted, disjoint ranges; each keeps the label of its first hit in compareHits order. */
export function mergeHits(hits: Hit[]): MergedRange[] {
  hits.sort(compareHits);
  const merged: MergedRange[] = [];
  let current: MergedRange | undefined;
  for (const hit of hits) {
    if (current !== undefined && hit.start < current.end) {
      if (hit.end > current.end) current.end = hit.end;
      continue;
    }
    current = { start: hit.start, end: hit.end, label: hit.label };
    merged.push(current);
  }
  return merged;
}

export function redactionMarker(label: string): string {
  return `[REDACTED:${label}]`;
}

/** Replaces `ranges` (sorted, disjoint, inside `text`) and counts them by label into `counts`. */
export function applyRanges(
  text: string,
  ranges: readonly MergedRange[],
  counts: Record<string, number>,
): string {
  if (ranges.length === 0) return text;
  let out = "";
  let at = 0;
  for (const range of ranges) {
    out += text.slice(at, range.start) + redactionMarker(range.label);
    at = range.end;
    counts[range.label] = (counts[range.label] ?? 0) + 1;
  }
  return out + text.slice(at);
}
