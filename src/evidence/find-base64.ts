// A base64 run (standard or URL-safe, possibly wrapped over lines as base64 tools print it) around a place
// where some detector's anchor appears encoded: decode it and let the caller scan what it decodes to, as
// secret scanners such as TruffleHog do. When the decoded text holds a token the whole run is one hit.
import type { MergedRange } from "./apply-hits.js";

/** Longest encoded block decoded at once; a longer one is decoded this far around the anchor. */
export const MAX_BLOCK_CHARS = 64 * 1024;
/** The widths base64 tools wrap at: coreutils `base64` and MIME 76, OpenSSL and PEM 64. */
const WRAP_WIDTHS = new Set([64, 76]);

const BASE64_CODE = (() => {
  const table = new Uint8Array(128);
  for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_")
    table[c.charCodeAt(0)] = 1;
  return table;
})();

function isBase64At(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code < 128 && BASE64_CODE[code] === 1;
}

interface Run {
  start: number;
  end: number;
}

function runAround(text: string, at: number): Run {
  let start = at;
  let end = at;
  while (start > 0 && at - start < MAX_BLOCK_CHARS && isBase64At(text, start - 1)) start--;
  while (end < text.length && end - at < MAX_BLOCK_CHARS && isBase64At(text, end)) end++;
  return { start, end };
}

/** Where the line after a run that ends its line begins (after `\n` or `\r\n`), or -1. */
function nextLineStart(text: string, end: number): number {
  if (text[end] === "\n") return end + 1;
  if (text[end] === "\r" && text[end + 1] === "\n") return end + 2;
  return -1;
}

/** The end of the line before one that starts at `start`, or -1. */
function previousLineEnd(text: string, start: number): number {
  if (start === 0 || text[start - 1] !== "\n") return -1;
  return text[start - 2] === "\r" ? start - 2 : start - 1;
}

const startsLine = (text: string, at: number) => at === 0 || text[at - 1] === "\n";
const wrappedLine = (run: Run) => WRAP_WIDTHS.has(run.end - run.start);

/** The run holding `at`, joined with the whole lines of the same wrapped encoding before and after it. */
export function encodedBlock(text: string, at: number): Run[] {
  const runs = [runAround(text, at)];
  let size = runs[0]!.end - runs[0]!.start;
  // Earlier lines: whole lines of a wrapping width.
  for (let first = runs[0]!; startsLine(text, first.start) && size < MAX_BLOCK_CHARS; ) {
    const end = previousLineEnd(text, first.start);
    if (end <= 0) break;
    const previous = runAround(text, end - 1);
    if (previous.end !== end || !startsLine(text, previous.start) || !wrappedLine(previous)) break;
    runs.unshift(previous);
    size += previous.end - previous.start;
    first = previous;
  }
  // Later lines: this line is whole and of a wrapping width, the next is all encoding.
  for (let last = runs[runs.length - 1]!; size < MAX_BLOCK_CHARS; ) {
    if (!startsLine(text, last.start) || !wrappedLine(last)) break;
    const start = nextLineStart(text, last.end);
    if (start < 0 || !isBase64At(text, start)) break;
    const next = runAround(text, start);
    // The next line must be all encoding too (its last line may end in `=` padding).
    let lineEnd = next.end;
    while (text[lineEnd] === "=" && lineEnd - next.end < 2) lineEnd++;
    if (lineEnd < text.length && nextLineStart(text, lineEnd) < 0) break;
    runs.push(next);
    size += next.end - next.start;
    last = next;
  }
  return runs;
}

/**
 * Decodes the encoded block around `quadStart` (where a 4-character group of the encoding starts) and calls
 * `scan` on the decoded text. A token found makes one hit: the block from its start through the line that
 * holds the token's end and every whole line after it (a short last line the token does not reach may be a
 * word that follows the block, and holds nothing secret either way), labelled by the first token's kind.
 * `block` is the whole block either way, so other places in it are not decoded again.
 */
export function findEncodedToken(
  text: string,
  quadStart: number,
  scan: (decoded: string) => MergedRange[],
): { block: Run; hit: MergedRange | null } {
  const runs = encodedBlock(text, quadStart);
  const first = runs[0]!;
  const last = runs[runs.length - 1]!;
  const block = { start: first.start, end: last.end };
  const starts: number[] = [];
  let joined = "";
  let offset = -1;
  for (const run of runs) {
    if (quadStart >= run.start && quadStart < run.end) offset = joined.length + quadStart - run.start;
    starts.push(joined.length);
    joined += text.slice(run.start, run.end);
  }
  if (offset < 0) return { block, hit: null };
  // Decoding starts on a group boundary: the one the anchor stands on, counted back in whole groups.
  const from = offset % 4;
  const found = scan(Buffer.from(joined.slice(from), "base64").toString("latin1"));
  if (found.length === 0) return { block, hit: null };
  const decodedEnd = Math.max(...found.map((range) => range.end));
  const encodedEnd = Math.min(joined.length, from + Math.ceil((decodedEnd * 4) / 3));
  let through = 0;
  while (through + 1 < runs.length && starts[through + 1]! < encodedEnd) through++;
  while (through + 1 < runs.length && wrappedLine(runs[through + 1]!)) through++;
  let end = runs[through]!.end;
  if (through === runs.length - 1) while (text[end] === "=" && end - runs[through]!.end < 2) end++;
  return { block, hit: { start: first.start, end, label: found[0]!.label } };
}

/**
 * Where a wrapped encoding that may go on past the end of `text` begins, or `text.length`: a stream holds that
 * much back until the block ends. It may go on when the text ends inside its last line, or after a whole
 * line of a wrapping width.
 */
export function openEncodedBlockStart(text: string): number {
  const endsLine = text[text.length - 1] === "\n";
  let end = text.length;
  if (endsLine) end = text[end - 2] === "\r" ? end - 2 : end - 1;
  if (end === 0 || !isBase64At(text, end - 1)) return text.length;
  const last = runAround(text, end - 1);
  if (last.end !== end || !startsLine(text, last.start)) return text.length;
  if (endsLine && !wrappedLine(last)) return text.length;
  return encodedBlock(text, last.start)[0]!.start;
}
