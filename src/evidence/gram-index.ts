// The candidate filter: every anchor and every encoded form of a known secret is indexed by the 4-character
// grams at SAMPLE_STEP consecutive offsets, so sampling the input every SAMPLE_STEP characters meets each
// occurrence exactly once. A bit set rejects almost every sample; a gram hash finds the candidates to verify.
import { type Anchor, chooseWindow, GRAM, parseAnchor, SAMPLE_STEP } from "./anchor.js";
import { encodedAnchors } from "./base64-anchors.js";
import type { Detector } from "./detectors.js";

export type Target =
  | { type: "literal"; form: string; base64: boolean; label: string }
  | { type: "detector"; detector: Detector; label: string }
  /** Some detector's anchor, base64-encoded: decode the run around it and scan what it decodes to. */
  | { type: "encoded"; label: string };

/**
 * The gram index. A "place" is one way a match can meet a sample (a target at one offset); every (gram, place)
 * pair is chained under its gram, so verifying a candidate reads typed arrays only.
 */
export interface GramIndex {
  /** Bloom filter over the grams: a clear bit means no anchor or form starts that way. */
  table: Uint32Array;
  shift: number;
  /**
   * Open-addressing hash of the grams, two entries per slot side by side (one cache line per probe): the gram
   * (as int32) and its first pair (-1: empty slot).
   */
  slots: Int32Array;
  slotShift: number;
  /** Per pair: its place, and the next pair with the same gram (-1: none). */
  pairPlace: Int32Array;
  pairNext: Int32Array;
  /** Per place: its target in `targets`. */
  placeTarget: Int32Array;
  /** Per place: sampled position minus this is where the match (or the detector's anchor point) starts. */
  placeDelta: Int32Array;
  /**
   * Per place: a detector's whole anchor: where its positions start in `anchorPositionRows`, its length and
   * start offset.
   */
  placeAnchorRow: Int32Array;
  placeAnchorLength: Int32Array;
  placeAnchorFrom: Int32Array;
  /** Per anchor position: its membership row in `anchorRows`. */
  anchorPositionRows: Int32Array;
  /** Membership rows of 256 bytes, one per distinct class (1: the low byte may appear there). */
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

/** A class's characters as low bytes, computed once per distinct class (anchors share about 150 classes). */
const classBytes = new Map<string, number[]>();

function bytesOf(chars: string): number[] {
  let bytes = classBytes.get(chars);
  if (bytes === undefined) {
    bytes = [];
    for (let i = 0; i < chars.length; i++) bytes.push(chars.charCodeAt(i) & 0xff);
    classBytes.set(chars, bytes);
  }
  return bytes;
}

/** Appends every 4-character gram the classes allow at `offset` (low bytes, little-endian) to `keys`. */
function pushGrams(classes: string[], offset: number, keys: number[]): void {
  const c0 = bytesOf(classes[offset] as string);
  const c1 = bytesOf(classes[offset + 1] as string);
  const c2 = bytesOf(classes[offset + 2] as string);
  const c3 = bytesOf(classes[offset + 3] as string);
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

/** The detector anchors' pairs and places, enumerated once per process and shared by every index. */
interface DetectorPlaces {
  keys: Uint32Array;
  /** Per key: its place. */
  places: Int32Array;
  targets: Target[];
  target: Int32Array;
  delta: Int32Array;
  anchorRow: Int32Array;
  anchorLength: Int32Array;
  anchorFrom: Int32Array;
  anchorPositionRows: Int32Array;
  anchorRows: Uint8Array;
}

const detectorPlaceCache = new WeakMap<readonly Detector[], DetectorPlaces>();

function detectorPlaces(detectors: readonly Detector[]): DetectorPlaces {
  const cached = detectorPlaceCache.get(detectors);
  if (cached !== undefined) return cached;
  const keys: number[] = [];
  const targets: Target[] = [];
  const columns = { target: [] as number[], delta: [] as number[], keyEnd: [] as number[] };
  const anchors = { row: [] as number[], length: [] as number[], from: [] as number[] };
  // Anchors share few distinct classes (about 150 among 2,400 positions): one row each.
  const rowOfClass = new Map<string, number>();
  const positionRows: number[] = [];
  const addAnchor = (anchor: Anchor, targetIndex: number) => {
    const start = chooseWindow(anchor);
    const firstPosition = positionRows.length;
    for (const chars of anchor.classes) {
      let row = rowOfClass.get(chars);
      if (row === undefined) {
        row = rowOfClass.size;
        rowOfClass.set(chars, row);
      }
      positionRows.push(row);
    }
    for (let o = start; o < start + SAMPLE_STEP; o++) {
      columns.target.push(targetIndex);
      columns.delta.push(o - anchor.matchOffset);
      anchors.row.push(firstPosition);
      anchors.length.push(anchor.classes.length);
      anchors.from.push(-anchor.matchOffset);
      pushGrams(anchor.classes, o, keys);
      columns.keyEnd.push(keys.length);
    }
  };
  for (const detector of detectors) {
    const targetIndex = targets.push({ type: "detector", detector, label: detector.kind }) - 1;
    for (const spec of detector.anchors) addAnchor(parseAnchor(spec), targetIndex);
  }
  if (detectors.length > 0) {
    const encoded = targets.push({ type: "encoded", label: "base64" }) - 1;
    const specs = detectors.flatMap((detector) => (detector.encoded === false ? [] : detector.anchors));
    for (const spec of new Set(specs)) {
      for (const anchor of encodedAnchors(spec)) addAnchor(anchor, encoded);
    }
  }
  // Typed columns, so each index copies them with one memcpy.
  const places = new Int32Array(keys.length);
  columns.keyEnd.forEach((end, place) => {
    places.fill(place, place === 0 ? 0 : (columns.keyEnd[place - 1] as number), end);
  });
  const anchorRows = new Uint8Array(rowOfClass.size * 256);
  for (const [chars, row] of rowOfClass) {
    for (let c = 0; c < chars.length; c++) anchorRows[row * 256 + (chars.charCodeAt(c) & 0xff)] = 1;
  }
  const found: DetectorPlaces = {
    keys: Uint32Array.from(keys),
    places,
    targets,
    target: Int32Array.from(columns.target),
    delta: Int32Array.from(columns.delta),
    anchorRow: Int32Array.from(anchors.row),
    anchorLength: Int32Array.from(anchors.length),
    anchorFrom: Int32Array.from(anchors.from),
    anchorPositionRows: Int32Array.from(positionRows),
    anchorRows,
  };
  detectorPlaceCache.set(detectors, found);
  return found;
}

export function buildGramIndex(
  literals: readonly { label: string; form: string; base64: boolean }[],
  detectors: readonly Detector[],
  maxBits = MAX_TABLE_BITS,
): GramIndex {
  const base = detectorPlaces(detectors);
  const total = base.keys.length + literals.length * SAMPLE_STEP;
  const totalPlaces = base.target.length + literals.length * SAMPLE_STEP;
  const pairKey = new Uint32Array(total);
  const pairPlace = new Int32Array(total);
  pairKey.set(base.keys);
  pairPlace.set(base.places);
  const placeTarget = new Int32Array(totalPlaces);
  const placeDelta = new Int32Array(totalPlaces);
  const placeAnchorRow = new Int32Array(totalPlaces);
  const placeAnchorLength = new Int32Array(totalPlaces);
  const placeAnchorFrom = new Int32Array(totalPlaces);
  placeTarget.set(base.target);
  placeDelta.set(base.delta);
  placeAnchorRow.set(base.anchorRow);
  placeAnchorLength.set(base.anchorLength);
  placeAnchorFrom.set(base.anchorFrom);
  const targets = base.targets.slice();
  let pair = base.keys.length;
  let place = base.target.length;
  let longestLiteral = 0;
  for (const literal of literals) {
    if (literal.form.length < SAMPLE_STEP + GRAM - 1) {
      throw new Error(`literal forms must be at least ${SAMPLE_STEP + GRAM - 1} characters`);
    }
    longestLiteral = Math.max(longestLiteral, literal.form.length);
    const targetIndex = targets.push({ type: "literal", ...literal }) - 1;
    for (let o = 0; o < SAMPLE_STEP; o++) {
      placeTarget[place] = targetIndex;
      placeDelta[place] = o;
      pairKey[pair] = gramAt(literal.form, o);
      pairPlace[pair++] = place++;
    }
  }
  // Open addressing with linear probing, at most half full; pairs with the same gram are chained.
  let slotBits = 10;
  while (2 ** slotBits < total * 2) slotBits++;
  const mask = 2 ** slotBits - 1;
  const slotShift = 32 - slotBits;
  const slots = new Int32Array(2 * (mask + 1));
  for (let slot = 0; slot <= mask; slot++) slots[2 * slot + 1] = -1;
  const pairNext = new Int32Array(total);
  let unique = 0;
  for (let q = 0; q < total; q++) {
    const key = (pairKey[q] as number) | 0;
    let slot = Math.imul(key, SLOT_MULTIPLIER) >>> slotShift;
    while (slots[2 * slot + 1] !== -1 && slots[2 * slot] !== key) slot = (slot + 1) & mask;
    pairNext[q] = slots[2 * slot + 1] as number;
    if (slots[2 * slot + 1] === -1) {
      slots[2 * slot] = key;
      unique++;
    }
    slots[2 * slot + 1] = q;
  }
  // One bit per slot, 64 slots per gram (few false positives) but at most 512 KiB, so it stays in cache.
  let bits = 12;
  while (bits < maxBits && 2 ** bits < unique * 64) bits++;
  const table = new Uint32Array(2 ** (bits - 5));
  const shift = 32 - bits;
  for (let slot = 0; slot <= mask; slot++) {
    if (slots[2 * slot + 1] === -1) continue;
    const key = slots[2 * slot] as number;
    const first = Math.imul(key, HASH_MULTIPLIER) >>> shift;
    table[first >>> 5] = (table[first >>> 5] as number) | (1 << (first & 31));
    const second = Math.imul(key, SECOND_HASH_MULTIPLIER) >>> shift;
    table[second >>> 5] = (table[second >>> 5] as number) | (1 << (second & 31));
  }
  return {
    table,
    shift,
    slots,
    slotShift,
    pairPlace,
    pairNext,
    placeTarget,
    placeDelta,
    placeAnchorRow,
    placeAnchorLength,
    placeAnchorFrom,
    anchorPositionRows: base.anchorPositionRows,
    anchorRows: base.anchorRows,
    targets,
    longestLiteral,
    runs: detectors.length > 0,
  };
}
