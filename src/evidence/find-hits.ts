// Scans text with the gram index and verifies each candidate, collecting every hit (overlapping ones too).
import { GRAM, SAMPLE_STEP } from "./anchor.js";
import type { Detector } from "./detectors.js";
import { shannonBitsPerChar } from "./entropy.js";
import { type GramEntry, type GramIndex, HASH_MULTIPLIER, SLOT_MULTIPLIER } from "./gram-index.js";

export interface Hit {
  start: number;
  end: number;
  label: string;
  /** Known secrets win over pattern kinds when two hits cover the same text. */
  known: boolean;
}

const NEWLINE = 10;
let scratch: Buffer = Buffer.alloc(0);

/** Newlines before the text, so anchors with up to two characters of left context match at its start. */
const LEAD = 2;

function latin1View(text: string): DataView {
  const needed = text.length + LEAD + 4;
  if (scratch.length < needed) scratch = Buffer.allocUnsafe(Math.max(needed, scratch.length * 2, 1 << 16));
  // Each UTF-16 unit lands on one byte (its low byte), so byte offsets are string offsets plus LEAD.
  scratch.fill(NEWLINE, 0, LEAD);
  scratch.write(text, LEAD, "latin1");
  scratch.fill(NEWLINE, text.length + LEAD, needed);
  return new DataView(scratch.buffer, scratch.byteOffset, needed);
}

const BASE64_CHAR = /[A-Za-z0-9+/_-]/;
const RUN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-";
const PAIR_BASE64 = 1;
const PAIR_CONTROL = 2;
/**
 * Per 16-bit pair of bytes: PAIR_CONTROL when either is a control character (a low byte of a non-Latin-1
 * character may look like one: that only costs a closer look). PAIR_BASE64 when both are base64 characters.
 */
const PAIR_CLASS = (() => {
  const single = new Uint8Array(256);
  for (const c of RUN_CHARS) single[c.charCodeAt(0)] = PAIR_BASE64;
  for (let b = 0; b < 256; b++) {
    if ((b < 0x20 && b !== 9 && b !== 10) || (b >= 0x7f && b <= 0x9f)) single[b] = PAIR_CONTROL;
  }
  const pairs = new Uint8Array(65536);
  for (let p = 0; p < 65536; p++) {
    const a = single[p & 0xff] as number;
    const b = single[p >>> 8] as number;
    pairs[p] = (a & b & PAIR_BASE64) | ((a | b) & PAIR_CONTROL);
  }
  return pairs;
})();
/** A quoted value needs at least 32 characters; that many hold at least 7 whole consecutive samples. */
const RUN_SAMPLES = Math.floor((32 - GRAM) / SAMPLE_STEP);
const MIN_QUOTED_LENGTH = 32;
const MAX_QUOTED_LENGTH = 4096;
const QUOTED_MIN_BITS = 4.5;

const IS_RUN_CHAR = (() => {
  const table = new Uint8Array(128);
  for (const c of RUN_CHARS) table[c.charCodeAt(0)] = 1;
  return table;
})();

function isRunChar(text: string, at: number): boolean {
  const c = text.charCodeAt(at);
  return c < 128 && IS_RUN_CHAR[c] === 1;
}

/** A quoted run of base64 characters, at least 32 long, with at least 4.5 bits of entropy per character. */
function verifyQuotedRun(text: string, near: number, hits: Hit[]): void {
  let start = Math.max(0, near);
  while (start > 0 && start > near - SAMPLE_STEP - 1 && isRunChar(text, start - 1)) start--;
  const quote = text[start - 1];
  if (quote !== '"' && quote !== "'" && quote !== "`") return;
  let end = start;
  let kinds = 0; // 1 upper case, 2 lower case, 4 digit: generated base64 has all three, hex and UUIDs do not
  while (end < text.length && end - start <= MAX_QUOTED_LENGTH && isRunChar(text, end)) {
    const c = text.charCodeAt(end);
    kinds |= c >= 0x41 && c <= 0x5a ? 1 : c >= 0x61 && c <= 0x7a ? 2 : c >= 0x30 && c <= 0x39 ? 4 : 0;
    end++;
  }
  if (kinds !== 7 || text[end] !== quote) return;
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
function anchorPresent(anchor: Uint8Array[], text: string, from: number): boolean {
  for (let k = 0; k < anchor.length; k++) {
    const at = from + k;
    // Before the text's start the scanner's padding newline stands in.
    const code = at < 0 ? NEWLINE : at < text.length ? text.charCodeAt(at) & 0xff : -1;
    if (code < 0 || (anchor[k] as Uint8Array)[code] !== 1) return false;
  }
  return true;
}

function verify(index: GramIndex, first: number, text: string, sampled: number, hits: Hit[]): void {
  for (let pair = first; pair !== -1; pair = index.pairNext[pair] as number) {
    const { target, delta, anchor, anchorFrom } = index.entries[index.pairEntry[pair] as number] as GramEntry;
    const start = sampled - delta;
    if (target.type === "detector") {
      if (anchor !== undefined && !anchorPresent(anchor, text, start + (anchorFrom ?? 0))) continue;
      if (target.detector.precheck !== undefined && !target.detector.precheck(text, start)) continue;
      verifyDetector(target.detector, text, start, hits);
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

/** Every hit in `text`, unsorted. One pass: the samples' four bytes cover every character. */
export function findHits(index: GramIndex, text: string): ScanResult {
  const hits: Hit[] = [];
  const view = latin1View(text);
  const { table, shift, slotKeys, slotFirst, slotShift, runs } = index;
  const slotMask = slotKeys.length - 1;
  const last = text.length + LEAD - 1;
  let run = 0;
  let control = 0;
  for (let i = 0; i <= last; i += SAMPLE_STEP) {
    const gram = view.getUint32(i, true);
    // Word tricks on the four bytes (exact "is any byte below n" tests): a byte of 0x7f or above, a byte below
    // "+" (space, quotes, punctuation, controls) and a byte below 0x20 (controls, newline, tab).
    const high = ((((gram & 0x7f7f7f7f) + 0x01010101) | gram) & 0x80808080) >>> 0;
    if ((((gram - 0x2b2b2b2b) & ~gram & 0x80808080) | high) === 0) {
      // Consecutive samples with no space, quote or control character: maybe a long quoted base64 value.
      if (++run === RUN_SAMPLES && runs)
        verifyQuotedRun(text, i - LEAD - SAMPLE_STEP * (RUN_SAMPLES - 1), hits);
    } else {
      run = 0;
      if ((((gram - 0x20202020) & ~gram & 0x80808080) | high) !== 0) {
        // A newline, tab, non-ASCII or control character: the exact per-byte check decides.
        control |=
          ((PAIR_CLASS[gram & 0xffff] as number) | (PAIR_CLASS[gram >>> 16] as number)) & PAIR_CONTROL;
      }
    }
    const slot = Math.imul(gram, HASH_MULTIPLIER) >>> shift;
    if (((table[slot >>> 5] as number) & (1 << (slot & 31))) === 0) continue;
    for (let probe = Math.imul(gram, SLOT_MULTIPLIER) >>> slotShift; ; probe = (probe + 1) & slotMask) {
      const first = slotFirst[probe] as number;
      if (first === -1) break;
      if (slotKeys[probe] === gram) {
        verify(index, first, text, i - LEAD, hits);
        break;
      }
    }
  }
  return { hits, control: control !== 0 };
}
