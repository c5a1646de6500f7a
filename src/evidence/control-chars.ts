// Terminal escape sequences and control characters are removed before matching (newline and tab stay), so a
// secret broken up by colour codes is still found and output cannot rewrite the reader's terminal.
import { controlBlocks, isControlCode, type ScanEngine } from "./candidate-scan.js";
import type { GramIndex } from "./gram-index.js";

const CONTROL =
  /\x1b(?:\[[0-?]*[ -/]*[@-~]?|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -/]*[0-~]?)|\x9b[0-?]*[ -/]*[@-~]?|[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f-\x9f]/g;
const ANY_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
/** CONTROL anchored where it is run: every alternative starts with a control character, so it always matches there. */
const CONTROL_AT = new RegExp(CONTROL.source, "y");

export const ANSI_KIND = "ansi_escape";
export const CONTROL_KIND = "control_character";

export interface StrippedText {
  text: string;
  ansi: number;
  control: number;
}

/** A removed sequence counts as an escape when it is longer than one character or a lone ESC or CSI. */
const isEscape = (first: number, length: number) => length > 1 || first === 0x1b || first === 0x9b;

export function stripControlCharacters(text: string): StrippedText {
  if (!ANY_CONTROL.test(text)) return { text, ansi: 0, control: 0 };
  let ansi = 0;
  let control = 0;
  const stripped = text.replace(CONTROL, (sequence) => {
    if (isEscape(sequence.charCodeAt(0), sequence.length)) ansi++;
    else control++;
    return "";
  });
  return { text: stripped, ansi, control };
}

/** Where a CONTROL-sequence parameter run ends: [0-?]* then [ -/]* then one optional [@-~] (as CONTROL does). */
function csiEnd(text: string, from: number): number {
  let at = from;
  while (at < text.length && text.charCodeAt(at) >= 0x30 && text.charCodeAt(at) <= 0x3f) at++;
  while (at < text.length && text.charCodeAt(at) >= 0x20 && text.charCodeAt(at) <= 0x2f) at++;
  if (at < text.length && text.charCodeAt(at) >= 0x40 && text.charCodeAt(at) <= 0x7e) at++;
  return at;
}

/** The length of CONTROL's match at a control character: colour codes (CSI) parsed directly, as they are most. */
function sequenceLength(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === 0x9b) return csiEnd(text, at + 1) - at;
  if (c !== 0x1b) return 1;
  if (text.charCodeAt(at + 1) === 0x5b) return csiEnd(text, at + 2) - at; // ESC [
  CONTROL_AT.lastIndex = at;
  return (CONTROL_AT.exec(text) as RegExpExecArray)[0].length;
}

/**
 * stripControlCharacters, looking only inside the listed 16-character blocks (text offsets, ascending; together
 * they hold every control character, as the scan kernel's `controls` reports): far faster on long coloured text
 * than a regular expression that tests every character.
 */
export function stripControlCharactersInBlocks(
  text: string,
  blocks: Int32Array,
  count: number,
): StrippedText {
  if (count === 0) return { text, ansi: 0, control: 0 };
  const pieces: string[] = [];
  let cursor = 0;
  let ansi = 0;
  let control = 0;
  for (let b = 0; b < count; b++) {
    const end = Math.min(text.length, (blocks[b] as number) + 16);
    for (let at = Math.max(cursor, blocks[b] as number); at < end; at++) {
      if (!isControlCode(text.charCodeAt(at))) continue;
      const first = text.charCodeAt(at);
      const length = sequenceLength(text, at);
      pieces.push(text.slice(cursor, at));
      cursor = at + length;
      at = cursor - 1;
      if (isEscape(first, length)) ansi++;
      else control++;
    }
  }
  if (cursor === 0 && pieces.length === 0) return { text, ansi, control };
  pieces.push(text.slice(cursor));
  return { text: pieces.join(""), ansi, control };
}

/** Strips control characters, finding them with the scan kernel where it runs (the regular expression otherwise). */
export function stripControls(index: GramIndex, text: string, engine: ScanEngine): StrippedText {
  const blocks = controlBlocks(index, text, engine);
  return blocks === undefined
    ? stripControlCharacters(text)
    : stripControlCharactersInBlocks(text, blocks.list, blocks.count);
}
