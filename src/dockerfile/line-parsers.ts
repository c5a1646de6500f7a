// The per-instruction argument shapes of BuildKit's parser: words that keep their quotes, name=value pairs,
// JSON arrays, whitespace lists and HEALTHCHECK's type word. Pure; errors are plain messages.
import { isGoSpace, isGoSpaceCode, splitWhitespace, trimLeftSpace } from "./text.js";

export class ParseLineError extends Error {
  override readonly name = "ParseLineError";
}

export interface ArgumentNode {
  /** The argument values in order (BuildKit's `Next` chain). */
  values: string[];
  /** True when the arguments came from a JSON array (exec form). */
  json: boolean;
}

const NONE: ArgumentNode = { values: [], json: false };

/**
 * Splits on unquoted whitespace, keeping quotes and escapes in the words (BuildKit's parseWords). Words are
 * contiguous slices of the input: only an escape character at the very end of the text is dropped.
 */
export function parseWords(rest: string, escapeChar: string): string[] {
  const words: string[] = [];
  const escapeCode = escapeChar.charCodeAt(0);
  const length = rest.length;
  let start = -1;
  let quote = 0;
  let blankOk = false;
  const finish = (end: number) => {
    let stop = end;
    if (stop === length && stop > start && droppedFinalEscape) stop--;
    if (blankOk || stop > start) words.push(rest.slice(start, stop));
    start = -1;
    blankOk = false;
  };
  let droppedFinalEscape = false;
  for (let i = 0; i < length; i++) {
    const code = rest.charCodeAt(i);
    if (start < 0) {
      if (isGoSpaceCode(code)) continue;
      start = i;
    }
    if (quote === 0) {
      if (isGoSpaceCode(code)) {
        finish(i);
        continue;
      }
      if (code === 0x27 || code === 0x22) {
        quote = code;
        blankOk = true;
      } else if (code === escapeCode) {
        if (i + 1 === length) droppedFinalEscape = true;
        else i++;
      }
      continue;
    }
    if (code === quote) quote = 0;
    else if (code === escapeCode && quote !== 0x27) {
      if (i + 1 === length) {
        droppedFinalEscape = true;
        quote = 0;
      } else i++;
    }
  }
  if (start >= 0) finish(length);
  return words;
}

/** ENV and LABEL: `key value` (legacy, one pair) or `k=v k2=v2`; values are triples key, value, separator. */
export function parseNameValue(rest: string, keyword: string, escapeChar: string): ArgumentNode {
  const words = parseWords(rest, escapeChar);
  if (words.length === 0) return NONE;
  if (!words[0]!.includes("=")) {
    const parts = splitWhitespace(rest, 2);
    if (parts.length < 2) throw new ParseLineError(`${keyword} must have two arguments`);
    return { values: [parts[0]!, parts[1]!, ""], json: false };
  }
  const values: string[] = [];
  for (const word of words) {
    const at = word.indexOf("=");
    if (at < 0) {
      throw new ParseLineError(`Syntax error - can't find = in "${word}". Must be of the form: name=value`);
    }
    values.push(word.slice(0, at), word.slice(at + 1), "=");
  }
  return { values, json: false };
}

/** ARG: `name`, `name=value`, several per line. */
export function parseNameOrNameValue(rest: string, escapeChar: string): ArgumentNode {
  return { values: parseWords(rest, escapeChar), json: false };
}

export function parseWhitespaceList(rest: string): ArgumentNode {
  if (rest === "") return NONE;
  return { values: splitWhitespace(rest), json: false };
}

export function parseString(rest: string): ArgumentNode {
  return rest === "" ? NONE : { values: [rest], json: false };
}

type JsonAttempt = { ok: true; node: ArgumentNode } | { ok: false; notStrings: boolean };

function parseJsonArray(rest: string): JsonAttempt {
  const text = trimLeftSpace(rest);
  if (!text.startsWith("[")) return { ok: false, notStrings: false };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, notStrings: false };
  }
  if (!Array.isArray(parsed)) return { ok: false, notStrings: false };
  if (!parsed.every((item) => typeof item === "string")) return { ok: false, notStrings: true };
  return { ok: true, node: { values: parsed as string[], json: true } };
}

const NOT_STRINGS = "when using JSON array syntax, arrays must be comprised of strings only";

/** RUN, CMD, ENTRYPOINT, SHELL: a JSON array of strings, or the whole text as one shell-form value. */
export function parseMaybeJson(rest: string): ArgumentNode {
  if (rest === "") return NONE;
  const attempt = parseJsonArray(rest);
  if (attempt.ok) return attempt.node;
  if (attempt.notStrings) throw new ParseLineError(NOT_STRINGS);
  return { values: [rest], json: false };
}

/** COPY, ADD, VOLUME: a JSON array of strings, or whitespace-separated words. */
export function parseMaybeJsonToList(rest: string): ArgumentNode {
  const attempt = parseJsonArray(rest);
  if (attempt.ok) return attempt.node;
  if (attempt.notStrings) throw new ParseLineError(NOT_STRINGS);
  return parseWhitespaceList(rest);
}

/** HEALTHCHECK: a type word (`CMD`, `NONE`) then the command like CMD. */
export function parseHealthcheck(rest: string): ArgumentNode {
  let sep = 0;
  while (sep < rest.length && !isGoSpace(rest[sep]!)) sep++;
  let next = sep;
  while (next < rest.length && isGoSpace(rest[next]!)) next++;
  if (sep === 0) return NONE;
  const command = parseMaybeJson(rest.slice(next));
  return { values: [rest.slice(0, sep), ...command.values], json: command.json };
}
