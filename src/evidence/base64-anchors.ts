// What a detector's anchor looks like once its text is base64-encoded (standard or URL-safe), at each of the
// three byte alignments inside a longer encoded text. Each encoded character depends on at most two bytes, so
// a class of plain characters becomes a class of encoded characters; the gram index samples these like any
// anchor, and only the places where one occurs are decoded and scanned (find-base64.ts). Pure.
import { type Anchor, GRAM, parseAnchor, SAMPLE_STEP } from "./anchor.js";

const STANDARD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
/** An encoded position any sextet can take: it tells nothing, so trailing ones are dropped. */
const ALL_SEXTETS = 64;
const ANY_BYTE = Array.from({ length: 256 }, (_, b) => b);

/** The characters of these sextet values in both alphabets. */
function sextetChars(values: ReadonlySet<number>): string {
  let out = "";
  for (const v of [...values].sort((a, b) => a - b)) {
    out += STANDARD[v];
    if (URL_SAFE[v] !== STANDARD[v]) out += URL_SAFE[v];
  }
  return out;
}

/** The distinct values of `f` over one class, e.g. each byte's top six bits. */
function project(bytes: readonly number[], f: (b: number) => number): Set<number> {
  return new Set(bytes.map(f));
}

/** Every sextet value of `(high << shift) | low` for the given parts. */
function combine(highs: ReadonlySet<number>, shift: number, lows: ReadonlySet<number>): Set<number> {
  const out = new Set<number>();
  for (const high of highs) for (const low of lows) out.add((high << shift) | low);
  return out;
}

/** The encoded classes of plain byte classes that start `align` bytes into a 3-byte group. */
function encodeClasses(plain: readonly number[][], align: number): string[] {
  const bytes: (readonly number[])[] = [...Array.from({ length: align }, () => ANY_BYTE), ...plain];
  while (bytes.length % 3 !== 0) bytes.push(ANY_BYTE);
  const sextets: Set<number>[] = [];
  for (let g = 0; g < bytes.length; g += 3) {
    const [b0, b1, b2] = [bytes[g]!, bytes[g + 1]!, bytes[g + 2]!];
    sextets.push(project(b0, (b) => b >> 2));
    sextets.push(
      combine(
        project(b0, (b) => b & 3),
        4,
        project(b1, (b) => b >> 4),
      ),
    );
    sextets.push(
      combine(
        project(b1, (b) => b & 15),
        2,
        project(b2, (b) => b >> 6),
      ),
    );
    sextets.push(project(b2, (b) => b & 63));
  }
  while (sextets.length > 0 && sextets[sextets.length - 1]!.size === ALL_SEXTETS) sextets.pop();
  return sextets.map(sextetChars);
}

/**
 * The encoded anchors of one plain anchor spec (see anchor.ts), each starting at a 3-byte group's first
 * encoded character. Left context is dropped (what precedes a token in the plain text is unknown); a short
 * anchor is extended with more of its last class until the sampler can use it.
 */
export function encodedAnchors(spec: string): Anchor[] {
  const anchor = parseAnchor(spec);
  const plain = anchor.classes.slice(anchor.matchOffset).map((chars) => {
    return [...new Set(Array.from(chars, (c) => c.charCodeAt(0) & 0xff))];
  });
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
