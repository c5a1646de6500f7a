// Verifies the candidate scan's places, collecting every hit (overlapping ones too).

import { SAMPLE_STEP } from "./anchor.js";
import { mergeHits } from "./apply-hits.js";
import {
  isQuoteCode,
  LEAD,
  NEWLINE,
  RUN_FLAG,
  RUN_SAMPLES,
  type ScanEngine,
  scanCandidates,
} from "./candidate-scan.js";
import type { Detector } from "./detectors.js";
import { shannonBitsPerChar } from "./entropy.js";
import { findEncodedToken } from "./find-base64.js";
import { type GramIndex, SLOT_MULTIPLIER, type Target } from "./gram-index.js";

export interface Hit {
  start: number;
  end: number;
  label: string;
  /** Known secrets win over pattern kinds when two hits cover the same text. */
  known: boolean;
}

const BASE64_CHAR = /[A-Za-z0-9+/_-]/;
const RUN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-";
const MIN_QUOTED_LENGTH = 32;
const MAX_QUOTED_LENGTH = 4096;
const QUOTED_MIN_BITS = 4.5;

/** Per ASCII code: 0 outside runs, else 1 upper case, 2 lower case, 4 digit or 8 other run character. */
const RUN_CLASS = (() => {
  const table = new Uint8Array(128);
  for (const c of RUN_CHARS) {
    table[c.charCodeAt(0)] = /[A-Z]/.test(c) ? 1 : /[a-z]/.test(c) ? 2 : /[0-9]/.test(c) ? 4 : 8;
  }
  return table;
})();

/** A table lookup rather than comparisons: random hex and base64 would mispredict every branch. */
function runClass(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return c < 128 ? (RUN_CLASS[c] as number) : 0;
}

/** A quoted run of base64 characters, at least 32 long, with at least 4.5 bits of entropy per character. */
function verifyQuotedRun(text: string, near: number, hits: Hit[]): void {
  let start = Math.max(0, near);
  while (start > 0 && start > near - SAMPLE_STEP - 1 && runClass(text, start - 1) !== 0) start--;
  const quote = text.charCodeAt(start - 1);
  if (!isQuoteCode(quote)) return;
  const limit = Math.min(text.length, start + MAX_QUOTED_LENGTH + 1);
  let end = start;
  let kinds = 0; // generated base64 has upper case, lower case and digits (1 | 2 | 4); hex and UUIDs do not
  for (let kind = runClass(text, end); kind !== 0 && end < limit; kind = runClass(text, ++end)) kinds |= kind;
  if ((kinds & 7) !== 7 || text.charCodeAt(end) !== quote) return;
  if (end - start < MIN_QUOTED_LENGTH || end - start > MAX_QUOTED_LENGTH) return;
  if (shannonBitsPerChar(text.slice(start, end)) < QUOTED_MIN_BITS) return;
  hits.push({ start, end, label: "high_entropy_string", known: false });
}

function widenBase64(text: string, start: number, end: number): [number, number] {
  let s = start;
  let e = end;
  if (s > 0 && BASE64_CHAR.test(text[s - 1] as string)) s--;
  if (e < text.length && BASE64_CHAR.test(text[e] as string)) e++;
  while (e < text.length && text[e] === "=" && e - end < 3) e++;
  return [s, e];
}

function verifyDetector(detector: Detector, text: string, point: number, hits: Hit[]): void {
  const { regex } = detector;
  const push = (match: RegExpExecArray, offset: number) => {
    let start = match.index + offset;
    let end = start + match[0].length;
    let value = match[0];
    if (detector.group !== undefined) {
      const span = match.indices?.[detector.group];
      if (span === undefined) return;
      start = span[0] + offset;
      end = span[1] + offset;
      value = match[detector.group] as string;
    }
    if (detector.accept !== undefined && !detector.accept(value, match)) return;
    hits.push({ start, end, label: detector.kind, known: false });
  };
  if (detector.mode === "sticky") {
    if (point < 0) return;
    regex.lastIndex = point;
    const match = regex.exec(text);
    if (match !== null) push(match, 0);
    return;
  }
  const from = Math.max(0, point - (detector.back ?? 0));
  const slice = text.slice(from, Math.min(text.length, point + (detector.forward ?? 0)));
  const local = point - from;
  regex.lastIndex = 0;
  for (let match = regex.exec(slice); match !== null; match = regex.exec(slice)) {
    if (match.index > local && detector.following !== true) break;
    if (match[0].length === 0) regex.lastIndex++;
    else if (match.index + match[0].length > local) push(match, from);
  }
}

/** The whole anchor must be there (the sampled gram covers only four of its positions). */
function anchorPresent(index: GramIndex, place: number, text: string, from: number): boolean {
  const rows = index.anchorRows;
  const positionRows = index.anchorPositionRows;
  const first = index.placeAnchorRow[place] as number;
  const length = index.placeAnchorLength[place] as number;
  for (let k = 0; k < length; k++) {
    const at = from + k;
    // Before the text's start the scanner's padding newline stands in.
    const code = at < 0 ? NEWLINE : at < text.length ? text.charCodeAt(at) & 0xff : -1;
    if (code < 0 || rows[(positionRows[first + k] as number) * 256 + code] !== 1) return false;
  }
  return true;
}

/** Places where an encoded anchor stands: decoded once the candidate list has been read (it is reused). */
type EncodedPlaces = number[] | null;

function verify(
  index: GramIndex,
  first: number,
  text: string,
  sampled: number,
  hits: Hit[],
  encoded: EncodedPlaces,
): void {
  for (let pair = first; pair !== -1; pair = index.pairNext[pair] as number) {
    const place = index.pairPlace[pair] as number;
    const start = sampled - (index.placeDelta[place] as number);
    const target = index.targets[index.placeTarget[place] as number] as Target;
    if (target.type === "detector") {
      if (!anchorPresent(index, place, text, start + (index.placeAnchorFrom[place] as number))) continue;
      if (target.detector.precheck !== undefined && !target.detector.precheck(text, start)) continue;
      verifyDetector(target.detector, text, start, hits);
    } else if (target.type === "encoded") {
      if (encoded === null || start < 0) continue;
      if (anchorPresent(index, place, text, start)) encoded.push(start);
    } else if (start >= 0 && text.startsWith(target.form, start)) {
      const [s, e] = target.base64
        ? widenBase64(text, start, start + target.form.length)
        : [start, start + target.form.length];
      hits.push({ start: s, end: e, label: target.label, known: true });
    }
  }
}

export interface ScanResult {
  hits: Hit[];
  /** The text may hold control characters (strip them and scan again). */
  control: boolean;
}

/** Decodes each base64 block holding an encoded anchor once and scans it (one level deep: no re-decoding). */
function verifyEncoded(
  index: GramIndex,
  text: string,
  places: number[],
  engine: ScanEngine | undefined,
  hits: Hit[],
) {
  places.sort((a, b) => a - b);
  let doneUntil = -1;
  for (const place of places) {
    if (place < doneUntil) continue;
    const { block, hit } = findEncodedToken(text, place, (decoded) =>
      mergeHits(findHits(index, decoded, engine, false).hits),
    );
    doneUntil = block.end;
    if (hit !== null) hits.push({ ...hit, known: false });
  }
}

/** Every hit in `text`, unsorted; `decode`: also decode base64 runs that hold an encoded anchor. */
export function findHits(index: GramIndex, text: string, engine?: ScanEngine, decode = true): ScanResult {
  const hits: Hit[] = [];
  const encoded: EncodedPlaces = decode ? [] : null;
  const { list, count, control } = scanCandidates(index, text, engine);
  const { slots, slotShift } = index;
  const slotMask = slots.length / 2 - 1;
  for (let c = 0; c < 2 * count; c += 2) {
    const candidate = list[c] as number;
    if (candidate < 0) {
      // A long run without spaces or quotes ended here: maybe a quoted base64 value began at its first sample.
      const lastSample = candidate & ~RUN_FLAG;
      verifyQuotedRun(text, lastSample - LEAD - SAMPLE_STEP * (RUN_SAMPLES - 1), hits);
      continue;
    }
    const at = candidate - LEAD;
    const gram = list[c + 1] as number;
    for (let probe = Math.imul(gram, SLOT_MULTIPLIER) >>> slotShift; ; probe = (probe + 1) & slotMask) {
      const first = slots[2 * probe + 1] as number;
      if (first === -1) break;
      if (slots[2 * probe] === gram) {
        verify(index, first, text, at, hits, encoded);
        break;
      }
    }
  }
  if (encoded !== null && encoded.length > 0) verifyEncoded(index, text, encoded, engine, hits);
  return { hits, control };
}
