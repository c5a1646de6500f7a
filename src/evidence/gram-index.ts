// The candidate filter: every anchor and every encoded form of a known secret is indexed by the 4-character
// grams at three consecutive offsets, so sampling the input every third character meets each occurrence once.
// A 1-bit-per-slot hash table rejects almost every sample; only exact gram hits are verified.
import { type Anchor, chooseWindow, GRAM, parseAnchor, SAMPLE_STEP } from "./anchor.js";
import type { Detector } from "./detectors.js";

export type Target =
  | { type: "literal"; form: string; base64: boolean; label: string }
  | { type: "detector"; detector: Detector; label: string };

export interface GramEntry {
  target: Target;
  /** Sampled position minus `delta` is where the match (or the detector's anchor point) starts. */
  delta: number;
}

export interface GramIndex {
  table: Uint8Array;
  shift: number;
  entries: Map<number, GramEntry[]>;
  /** The longest literal form: the look-behind a stream must keep. */
  longestLiteral: number;
  /** Look for long quoted high-entropy base64 values too (part of the pattern set). */
  runs: boolean;
}

export const HASH_MULTIPLIER = 0x9e3779b1;

function gramsOf(classes: string[], offset: number): number[] {
  let keys = [0];
  for (let k = 0; k < GRAM; k++) {
    const chars = classes[offset + k] as string;
    const next: number[] = [];
    for (const key of keys) {
      for (let c = 0; c < chars.length; c++) {
        next.push((key | ((chars.charCodeAt(c) & 0xff) << (8 * k))) >>> 0);
      }
    }
    keys = next;
  }
  return keys;
}

function literalAnchor(form: string): Anchor {
  return { classes: Array.from({ length: form.length }, (_, i) => form[i] as string), matchOffset: 0 };
}

export function buildGramIndex(
  literals: readonly { label: string; form: string; base64: boolean }[],
  detectors: readonly Detector[],
): GramIndex {
  const entries = new Map<number, GramEntry[]>();
  const add = (anchor: Anchor, target: Target, start: number) => {
    for (let o = start; o < start + SAMPLE_STEP; o++) {
      const delta = o - anchor.matchOffset;
      for (const key of new Set(gramsOf(anchor.classes, o))) {
        const list = entries.get(key);
        if (list === undefined) entries.set(key, [{ target, delta }]);
        else list.push({ target, delta });
      }
    }
  };
  let longestLiteral = 0;
  for (const literal of literals) {
    longestLiteral = Math.max(longestLiteral, literal.form.length);
    add(literalAnchor(literal.form), { type: "literal", ...literal }, 0);
  }
  for (const detector of detectors) {
    const target: Target = { type: "detector", detector, label: detector.kind };
    for (const spec of detector.anchors) {
      const anchor = parseAnchor(spec);
      add(anchor, target, chooseWindow(anchor));
    }
  }
  let bits = 12;
  while (bits < 22 && 1 << bits < entries.size * 16) bits++;
  const table = new Uint8Array(1 << bits);
  const shift = 32 - bits;
  for (const key of entries.keys()) table[Math.imul(key, HASH_MULTIPLIER) >>> shift] = 1;
  return { table, shift, entries, longestLiteral, runs: detectors.length > 0 };
}
