// The streaming wrapper: holds back enough text (the look-behind, the trailing unfinished word and any match
// that reaches the end of what has arrived) that a secret split across chunks is still found whole.
import { applyRanges, type MergedRange, mergeHits } from "./apply-hits.js";
import { ANSI_KIND, CONTROL_KIND, stripControls } from "./control-chars.js";
import type { RedactionCounts, SanitiserCore } from "./core.js";
import { openEncodedBlockStart } from "./find-base64.js";
import { findHits } from "./find-hits.js";

export interface SanitiserStream {
  /** Adds raw text; returns the sanitised text that is now safe to emit (possibly empty). */
  push(chunk: string): string;
  /** Ends the stream; returns everything still held back, sanitised. */
  flush(): string;
  /** Running counts by kind of what was redacted in emitted text. */
  readonly redactions: RedactionCounts;
}

/** Longest unfinished word held back before it is emitted in pieces anyway. */
const MAX_WORD_HOLD = 64 * 1024;
/** Longest text held back for one unfinished match (e.g. a private key whose end has not arrived). */
const MAX_PENDING = 1024 * 1024;
const PRIVATE_KEY_END = /-----END[ A-Z0-9_-]{0,40}PRIVATE KEY(?: BLOCK)?-----/;
const WHITESPACE = /\s/;

/** An escape sequence cut off at the end of a chunk stays raw until the rest arrives. */
function splitUnfinishedEscape(chunk: string): [string, string] {
  // Only the last 64 characters matter (lastIndexOf would walk the whole chunk when it holds no escape).
  let esc = -1;
  for (
    let at = chunk.indexOf("\x1b", Math.max(0, chunk.length - 64));
    at !== -1;
    at = chunk.indexOf("\x1b", at + 1)
  ) {
    esc = at;
  }
  if (esc < 0) return [chunk, ""];
  const tail = chunk.slice(esc);
  if (/^\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07]*\x07|[^[\]PX^_])/.test(tail)) return [chunk, ""];
  return [chunk.slice(0, esc), tail];
}

function chooseCut(text: string, ranges: readonly MergedRange[], lookBehind: number): number {
  let cut = Math.max(0, text.length - lookBehind);
  let runStart = text.length;
  while (
    runStart > 0 &&
    text.length - runStart < MAX_WORD_HOLD &&
    !WHITESPACE.test(text[runStart - 1] as string)
  ) {
    runStart--;
  }
  if (text.length - runStart < MAX_WORD_HOLD) cut = Math.min(cut, runStart);
  // A base64 block wrapped over lines is decoded whole: hold it while more lines of it may come.
  cut = Math.min(cut, openEncodedBlockStart(text));
  for (let r = ranges.length - 1; r >= 0; r--) {
    const range = ranges[r] as MergedRange;
    if (range.end === text.length || (range.start < cut && range.end > cut)) cut = Math.min(cut, range.start);
  }
  return cut;
}

export function createSanitiserStream(core: SanitiserCore): SanitiserStream {
  const redactions: RedactionCounts = {};
  let pending = "";
  let rawCarry = "";
  let inPrivateKey = false;

  // Raw text joins `pending`; control characters are stripped (and counted) when a scan finds any. The held
  // back part of `pending` has been stripped already, so stripping it again changes and counts nothing.
  const append = (raw: string) => {
    pending += raw;
  };
  const strip = () => {
    const stripped = stripControls(core.index, pending, core.engine);
    if (stripped.ansi > 0) redactions[ANSI_KIND] = (redactions[ANSI_KIND] ?? 0) + stripped.ansi;
    if (stripped.control > 0) redactions[CONTROL_KIND] = (redactions[CONTROL_KIND] ?? 0) + stripped.control;
    pending = stripped.text;
  };

  const skipPrivateKeyBody = (final: boolean) => {
    const end = PRIVATE_KEY_END.exec(pending);
    if (end !== null) {
      pending = pending.slice(end.index + end[0].length);
      inPrivateKey = false;
    } else {
      pending = final ? "" : pending.slice(-64); // the end marker may be split across chunks
    }
  };

  const scanPending = () => {
    if (pending.indexOf("\x1b") !== -1) strip();
    let scan = findHits(core.index, pending, core.engine);
    if (scan.control) {
      const before = pending;
      strip();
      if (pending !== before) scan = findHits(core.index, pending, core.engine);
    }
    return scan.hits;
  };

  const drain = (final: boolean): string => {
    if (inPrivateKey) {
      strip();
      skipPrivateKeyBody(final);
    }
    if (inPrivateKey) return "";
    const hits = scanPending();
    const text = pending;
    const ranges = mergeHits(hits);
    let cut = final ? text.length : chooseCut(text, ranges, core.lookBehind);
    let emitted = ranges.filter((range) => range.end <= cut);
    if (!final && text.length - cut > MAX_PENDING) {
      // Something unfinished is too long to hold: redact it whole now and skip the rest of a private key.
      cut = Math.max(0, text.length - core.lookBehind);
      const straddling = ranges.find((range) => range.start < cut && range.end > cut);
      emitted = ranges.filter((range) => range.start < cut);
      if (straddling !== undefined) {
        cut = straddling.end;
        inPrivateKey =
          straddling.label === "private_key" && !PRIVATE_KEY_END.test(text.slice(straddling.start));
      }
    }
    pending = text.slice(cut);
    const out = applyRanges(text.slice(0, cut), emitted, redactions);
    if (inPrivateKey) skipPrivateKeyBody(final);
    return out;
  };

  return {
    redactions,
    push(chunk) {
      const [complete, carry] = splitUnfinishedEscape(rawCarry + chunk);
      rawCarry = carry;
      append(complete);
      return drain(false);
    },
    flush() {
      append(rawCarry);
      rawCarry = "";
      return drain(true);
    },
  };
}
