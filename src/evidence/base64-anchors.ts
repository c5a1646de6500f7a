// What a detector's anchor looks like once its text is base64-encoded (standard or URL-safe), at each of the
// three byte alignments inside a longer encoded text. Each encoded character depends on at most two bytes, so
// a class of plain characters becomes a class of encoded characters; the gram index samples these like any
// anchor, and only the places where one occurs are decoded and scanned (find-base64.ts). Pure.
import { type Anchor, GRAM, parseAnchor, SAMPLE_STEP } from "./anchor.js";

const STANDARD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const ANY_CHARACTER = `${STANDARD}-_`;

/** A set of sextet values 0..63 as two 32-bit masks (this runs once per process, before the JIT warms up). */
interface Sextets {
  low: number;
  high: number;
}

/**
 * One plain byte class by the bit fields an encoded character takes from it: each field's possible values
 * as a mask (six-bit fields as Sextets).
 */
interface ByteFields {
  high6: Sextets;
  low2: number;
  high4: number;
  low4: number;
  high2: number;
  low6: Sextets;
}

function add(set: Sextets, value: number): void {
  if (value < 32) set.low = (set.low | (1 << value)) >>> 0;
  else set.high = (set.high | (1 << (value - 32))) >>> 0;
}

function fieldsOf(bytes: readonly number[]): ByteFields {
  const fields = {
    high6: { low: 0, high: 0 },
    low2: 0,
    high4: 0,
    low4: 0,
    high2: 0,
    low6: { low: 0, high: 0 },
  };
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    add(fields.high6, b >> 2);
    fields.low2 |= 1 << (b & 3);
    fields.high4 |= 1 << (b >> 4);
    fields.low4 |= 1 << (b & 15);
    fields.high2 |= 1 << (b >> 6);
    add(fields.low6, b & 63);
  }
  return fields;
}

/** Bytes before and after the anchor in the plain text: anything. */
const ANY_BYTE = fieldsOf(Array.from({ length: 256 }, (_, b) => b));

const fieldsByClass = new Map<string, ByteFields>();

/** The fields of an anchor class (a string of allowed characters; each matches by its low byte). */
function classFields(chars: string): ByteFields {
  let fields = fieldsByClass.get(chars);
  if (fields === undefined) {
    const bytes: number[] = [];
    for (let i = 0; i < chars.length; i++) bytes.push(chars.charCodeAt(i) & 0xff);
    fields = fieldsOf(bytes);
    fieldsByClass.set(chars, fields);
  }
  return fields;
}

/** The sextets `(high << 4) | low` can take: each possible high part places the low parts' mask. */
function combineHigh2(highs: number, lows: number): Sextets {
  const out = { low: 0, high: 0 };
  if (highs & 1) out.low |= lows;
  if (highs & 2) out.low |= lows << 16;
  if (highs & 4) out.high |= lows;
  if (highs & 8) out.high |= lows << 16;
  return { low: out.low >>> 0, high: out.high >>> 0 };
}

/** The sextets `(high << 2) | low` can take. */
function combineHigh4(highs: number, lows: number): Sextets {
  let low = 0;
  let high = 0;
  for (let h = 0; h < 16; h++) {
    if ((highs & (1 << h)) === 0) continue;
    if (h < 8) low |= lows << (4 * h);
    else high |= lows << (4 * (h - 8));
  }
  return { low: low >>> 0, high: high >>> 0 };
}

const charsBySextets = new Map<string, string | null>();

/** The characters of these sextets in both alphabets, or null when every sextet is possible (no information). */
function sextetChars(sextets: Sextets): string | null {
  const key = `${sextets.low}:${sextets.high}`;
  let chars = charsBySextets.get(key);
  if (chars === undefined) {
    let out = "";
    for (let v = 0; v < 64; v++) {
      const bit = v < 32 ? sextets.low & (1 << v) : sextets.high & (1 << (v - 32));
      if (bit === 0) continue;
      out += STANDARD[v];
      if (URL_SAFE[v] !== STANDARD[v]) out += URL_SAFE[v];
    }
    chars = sextets.low === 0xffffffff && sextets.high === 0xffffffff ? null : out;
    charsBySextets.set(key, chars);
  }
  return chars;
}

/** The encoded classes of plain byte classes that start `align` bytes into a 3-byte group. */
function encodeClasses(plain: readonly ByteFields[], align: number): string[] {
  const bytes: ByteFields[] = [];
  for (let i = 0; i < align; i++) bytes.push(ANY_BYTE);
  for (const fields of plain) bytes.push(fields);
  while (bytes.length % 3 !== 0) bytes.push(ANY_BYTE);
  const classes: (string | null)[] = [];
  for (let g = 0; g < bytes.length; g += 3) {
    const b0 = bytes[g]!;
    const b1 = bytes[g + 1]!;
    const b2 = bytes[g + 2]!;
    classes.push(sextetChars(b0.high6));
    classes.push(sextetChars(combineHigh2(b0.low2, b1.high4)));
    classes.push(sextetChars(combineHigh4(b1.low4, b2.high2)));
    classes.push(sextetChars(b2.low6));
  }
  // Trailing positions any character may take tell nothing; leading ones stay (they place the group).
  while (classes.length > 0 && classes[classes.length - 1] === null) classes.pop();
  return classes.map((chars) => chars ?? ANY_CHARACTER);
}

/**
 * The encoded anchors of one plain anchor spec (see anchor.ts), each starting at a 3-byte group's first
 * encoded character. Left context is dropped (what precedes a token in the plain text is unknown); a short
 * anchor is extended with more of its last class until the sampler can use it.
 */
export function encodedAnchors(spec: string): Anchor[] {
  const anchor = parseAnchor(spec);
  const plain = anchor.classes.slice(anchor.matchOffset).map(classFields);
  const last = plain[plain.length - 1]!;
  const anchors: Anchor[] = [];
  for (const align of [0, 1, 2]) {
    const extended = [...plain];
    let classes = encodeClasses(extended, align);
    while (classes.length < SAMPLE_STEP + GRAM - 1) {
      extended.push(last);
      classes = encodeClasses(extended, align);
    }
    anchors.push({ classes, matchOffset: 0 });
  }
  return anchors;
}
