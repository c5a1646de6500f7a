// The candidate filter: every anchor and every encoded form of a known secret is indexed by the 4-character
// grams at three consecutive offsets, so sampling the input every third character meets each occurrence once.
// A 1-bit-per-slot hash table rejects almost every sample; only exact gram hits are verified.
import { chooseWindow, GRAM, parseAnchor, SAMPLE_STEP } from "./anchor.js";
import type { Detector } from "./detectors.js";

export type Target =
  | { type: "literal"; form: string; base64: boolean; label: string }
  | { type: "detector"; detector: Detector; label: string };

export interface GramEntry {
  target: Target;
  /** Sampled position minus `delta` is where the match (or the detector's anchor point) starts. */
  delta: number;
  /** A detector's whole anchor (membership by low byte per position) and where it starts from that point. */
  anchor?: Uint8Array[];
  anchorFrom?: number;
}

export interface GramIndex {
  /** Bit set over hashed grams: a clear bit means no anchor or form starts that way. */
  table: Uint32Array;
  shift: number;
  entries: Map<number, GramEntry[]>;
  /** The longest literal form: the look-behind a stream must keep. */
  longestLiteral: number;
  /** Look for long quoted high-entropy base64 values too (part of the pattern set). */
  runs: boolean;
}

export const HASH_MULTIPLIER = 0x9e3779b1;
/** 2^22 bits = 512 KiB. */
export const MAX_TABLE_BITS = 22;

/** Calls `visit` with every 4-character gram the classes allow at `offset` (low bytes, little-endian). */
function forEachGram(classes: string[], offset: number, visit: (key: number) => void, k = 0, key = 0): void {
  if (k === GRAM) {
    visit(key >>> 0);
    return;
  }
  const chars = classes[offset + k] as string;
  for (let c = 0; c < chars.length; c++) {
    forEachGram(classes, offset, visit, k + 1, key | ((chars.charCodeAt(c) & 0xff) << (8 * k)));
  }
}

function gramAt(form: string, offset: number): number {
  let key = 0;
  for (let k = 0; k < GRAM; k++) key |= (form.charCodeAt(offset + k) & 0xff) << (8 * k);
  return key >>> 0;
}

type EntryMap = Map<number, GramEntry[]>;

function addEntry(entries: EntryMap, key: number, entry: GramEntry, shared?: EntryMap): void {
  const list = entries.get(key);
  if (list === undefined) entries.set(key, [entry]);
  else if (shared !== undefined && shared.get(key) === list)
    entries.set(key, [...list, entry]); // copy on write
  else list.push(entry);
}

/** Detector anchors are enumerated once per process and shared (copy on write) by every index. */
const detectorEntryCache = new WeakMap<readonly Detector[], EntryMap>();

function detectorEntries(detectors: readonly Detector[]): EntryMap {
  const cached = detectorEntryCache.get(detectors);
  if (cached !== undefined) return cached;
  const entries: EntryMap = new Map();
  for (const detector of detectors) {
    const target: Target = { type: "detector", detector, label: detector.kind };
    for (const spec of detector.anchors) {
      const anchor = parseAnchor(spec);
      const start = chooseWindow(anchor);
      const membership = anchor.classes.map((chars) => {
        const set = new Uint8Array(256);
        for (let c = 0; c < chars.length; c++) set[chars.charCodeAt(c) & 0xff] = 1;
        return set;
      });
      for (let o = start; o < start + SAMPLE_STEP; o++) {
        const entry: GramEntry = {
          target,
          delta: o - anchor.matchOffset,
          anchor: membership,
          anchorFrom: -anchor.matchOffset,
        };
        forEachGram(anchor.classes, o, (key) => addEntry(entries, key, entry));
      }
    }
  }
  detectorEntryCache.set(detectors, entries);
  return entries;
}

export function buildGramIndex(
  literals: readonly { label: string; form: string; base64: boolean }[],
  detectors: readonly Detector[],
  maxBits = MAX_TABLE_BITS,
): GramIndex {
  const shared = detectorEntries(detectors);
  const entries: EntryMap = new Map(shared);
  let longestLiteral = 0;
  for (const literal of literals) {
    if (literal.form.length < SAMPLE_STEP + GRAM - 1)
      throw new Error(`literal forms must be at least ${SAMPLE_STEP + GRAM - 1} characters`);
    longestLiteral = Math.max(longestLiteral, literal.form.length);
    const target: Target = { type: "literal", ...literal };
    for (let o = 0; o < SAMPLE_STEP; o++)
      addEntry(entries, gramAt(literal.form, o), { target, delta: o }, shared);
  }
  // One bit per slot, 64 slots per gram (few false positives) but at most 512 KiB, so it stays in cache.
  let bits = 12;
  while (bits < maxBits && 2 ** bits < entries.size * 64) bits++;
  const table = new Uint32Array(2 ** (bits - 5));
  const shift = 32 - bits;
  for (const key of entries.keys()) {
    const slot = Math.imul(key, HASH_MULTIPLIER) >>> shift;
    table[slot >>> 5] = (table[slot >>> 5] as number) | (1 << (slot & 31));
  }
  return { table, shift, entries, longestLiteral, runs: detectors.length > 0 };
}
