// The candidate filter: every anchor and every encoded form of a known secret is indexed by the 4-character
// grams at SAMPLE_STEP consecutive offsets, so sampling the input every SAMPLE_STEP characters meets each
// occurrence exactly once. A bit set rejects almost every sample; a gram hash finds the candidates to verify.
import { chooseWindow, GRAM, parseAnchor, SAMPLE_STEP } from "./anchor.js";
import type { Detector } from "./detectors.js";

export type Target =
  | { type: "literal"; form: string; base64: boolean; label: string }
  | { type: "detector"; detector: Detector; label: string };

/**
 * The gram index. Every (gram, place) pair is one row of the `pair*` arrays, so verifying a candidate reads
 * typed arrays only; pairs with the same gram are chained through `pairNext`.
 */
export interface GramIndex {
  /** Bloom filter over the grams: a clear bit means no anchor or form starts that way. */
  table: Uint32Array;
  shift: number;
  /** Open-addressing hash of the grams: a slot's key and its first pair (-1: empty slot). */
  slotKeys: Uint32Array;
  slotFirst: Int32Array;
  slotShift: number;
  /** The next pair with the same gram (-1: none). */
  pairNext: Int32Array;
  /** The pair's target in `targets`. */
  pairTarget: Int32Array;
  /** Sampled position minus `pairDelta` is where the match (or the detector's anchor point) starts. */
  pairDelta: Int32Array;
  /** A detector's whole anchor: its first row in `anchorRows` (-1: no anchor), its length and start offset. */
  pairAnchorRow: Int32Array;
  pairAnchorLength: Int32Array;
  pairAnchorFrom: Int32Array;
  /** Membership rows of 256 bytes, one per anchor position (1: the low byte may appear there). */
  anchorRows: Uint8Array;
  targets: Target[];
  /** The longest literal form: the look-behind a stream must keep. */
  longestLiteral: number;
  /** Look for long quoted high-entropy base64 values too (part of the pattern set). */
  runs: boolean;
}

/** The bit set is a Bloom filter with two bits per gram: (gram * multiplier) >>> shift for each multiplier. */
export const HASH_MULTIPLIER = 0x9e3779b1;
export const SECOND_HASH_MULTIPLIER = 0xc2b2ae35;
export const SLOT_MULTIPLIER = 0x85ebca6b;
/** 2^22 bits = 512 KiB. */
export const MAX_TABLE_BITS = 22;

/** Appends every 4-character gram the classes allow at `offset` (low bytes, little-endian) to `keys`. */
function pushGrams(classes: string[], offset: number, keys: number[]): void {
  const codes = [0, 1, 2, 3].map((k) =>
    Array.from(classes[offset + k] as string, (c) => c.charCodeAt(0) & 0xff),
  );
  const [c0, c1, c2, c3] = codes as [number[], number[], number[], number[]];
  // Plain nested loops: this runs once per process, mostly before the JIT has warmed up.
  for (let a = 0; a < c0.length; a++) {
    const k0 = c0[a] as number;
    for (let b = 0; b < c1.length; b++) {
      const k1 = k0 | ((c1[b] as number) << 8);
      for (let c = 0; c < c2.length; c++) {
        const k2 = k1 | ((c2[c] as number) << 16);
        for (let d = 0; d < c3.length; d++) {
          keys.push((k2 | ((c3[d] as number) << 24)) >>> 0);
        }
      }
    }
  }
}

function gramAt(form: string, offset: number): number {
  let key = 0;
  for (let k = 0; k < GRAM; k++) key |= (form.charCodeAt(offset + k) & 0xff) << (8 * k);
  return key >>> 0;
}

/** Pairs from detector anchors, in the index's column layout. */
interface DetectorPairs {
  keys: number[];
  targets: Target[];
  target: number[];
  delta: number[];
  anchorRow: number[];
  anchorLength: number[];
  anchorFrom: number[];
  anchorRows: Uint8Array;
}

/** Detector anchors are enumerated once per process and shared by every index. */
const detectorPairCache = new WeakMap<readonly Detector[], DetectorPairs>();

function detectorPairs(detectors: readonly Detector[]): DetectorPairs {
  const cached = detectorPairCache.get(detectors);
  if (cached !== undefined) return cached;
  const pairs: DetectorPairs = {
    keys: [],
    targets: [],
    target: [],
    delta: [],
    anchorRow: [],
    anchorLength: [],
    anchorFrom: [],
    anchorRows: new Uint8Array(0),
  };
  const rows: Uint8Array[] = [];
  for (const detector of detectors) {
    const targetIndex = pairs.targets.push({ type: "detector", detector, label: detector.kind }) - 1;
    for (const spec of detector.anchors) {
      const anchor = parseAnchor(spec);
      const start = chooseWindow(anchor);
      const firstRow = rows.length;
      for (const chars of anchor.classes) {
        const row = new Uint8Array(256);
        for (let c = 0; c < chars.length; c++) row[chars.charCodeAt(c) & 0xff] = 1;
        rows.push(row);
      }
      for (let o = start; o < start + SAMPLE_STEP; o++) {
        const before = pairs.keys.length;
        pushGrams(anchor.classes, o, pairs.keys);
        for (let k = before; k < pairs.keys.length; k++) {
          pairs.target.push(targetIndex);
          pairs.delta.push(o - anchor.matchOffset);
          pairs.anchorRow.push(firstRow);
          pairs.anchorLength.push(anchor.classes.length);
          pairs.anchorFrom.push(-anchor.matchOffset);
        }
      }
    }
  }
  pairs.anchorRows = new Uint8Array(rows.length * 256);
  rows.forEach((row, r) => {
    pairs.anchorRows.set(row, r * 256);
  });
  detectorPairCache.set(detectors, pairs);
  return pairs;
}

export function buildGramIndex(
  literals: readonly { label: string; form: string; base64: boolean }[],
  detectors: readonly Detector[],
  maxBits = MAX_TABLE_BITS,
): GramIndex {
  const base = detectorPairs(detectors);
  const total = base.keys.length + literals.length * SAMPLE_STEP;
  const pairKey = new Uint32Array(total);
  const pairTarget = new Int32Array(total);
  const pairDelta = new Int32Array(total);
  const pairAnchorRow = new Int32Array(total).fill(-1);
  const pairAnchorLength = new Int32Array(total);
  const pairAnchorFrom = new Int32Array(total);
  pairKey.set(base.keys);
  pairTarget.set(base.target);
  pairDelta.set(base.delta);
  pairAnchorRow.set(base.anchorRow);
  pairAnchorLength.set(base.anchorLength);
  pairAnchorFrom.set(base.anchorFrom);
  const targets = base.targets.slice();
  let p = base.keys.length;
  let longestLiteral = 0;
  for (const literal of literals) {
    if (literal.form.length < SAMPLE_STEP + GRAM - 1) {
      throw new Error(`literal forms must be at least ${SAMPLE_STEP + GRAM - 1} characters`);
    }
    longestLiteral = Math.max(longestLiteral, literal.form.length);
    const targetIndex = targets.push({ type: "literal", ...literal }) - 1;
    for (let o = 0; o < SAMPLE_STEP; o++) {
      pairKey[p] = gramAt(literal.form, o);
      pairTarget[p] = targetIndex;
      pairDelta[p++] = o;
    }
  }
  // Open addressing with linear probing, at most half full; pairs with the same gram are chained.
  let slotBits = 10;
  while (2 ** slotBits < total * 2) slotBits++;
  const mask = 2 ** slotBits - 1;
  const slotShift = 32 - slotBits;
  const slotKeys = new Uint32Array(mask + 1);
  const slotFirst = new Int32Array(mask + 1).fill(-1);
  const pairNext = new Int32Array(total);
  let unique = 0;
  for (let q = 0; q < total; q++) {
    const key = pairKey[q] as number;
    let slot = Math.imul(key, SLOT_MULTIPLIER) >>> slotShift;
    while (slotFirst[slot] !== -1 && slotKeys[slot] !== key) slot = (slot + 1) & mask;
    pairNext[q] = slotFirst[slot] as number;
    if (slotFirst[slot] === -1) {
      slotKeys[slot] = key;
      unique++;
    }
    slotFirst[slot] = q;
  }
  // One bit per slot, 64 slots per gram (few false positives) but at most 512 KiB, so it stays in cache.
  let bits = 12;
  while (bits < maxBits && 2 ** bits < unique * 64) bits++;
  const table = new Uint32Array(2 ** (bits - 5));
  const shift = 32 - bits;
  for (let slot = 0; slot <= mask; slot++) {
    if (slotFirst[slot] === -1) continue;
    for (const multiplier of [HASH_MULTIPLIER, SECOND_HASH_MULTIPLIER]) {
      const bit = Math.imul(slotKeys[slot] as number, multiplier) >>> shift;
      table[bit >>> 5] = (table[bit >>> 5] as number) | (1 << (bit & 31));
    }
  }
  return {
    table,
    shift,
    slotKeys,
    slotFirst,
    slotShift,
    pairNext,
    pairTarget,
    pairDelta,
    pairAnchorRow,
    pairAnchorLength,
    pairAnchorFrom,
    anchorRows: base.anchorRows,
    targets,
    longestLiteral,
    runs: detectors.length > 0,
  };
}
