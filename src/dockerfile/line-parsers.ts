// The per-instruction argument shapes of BuildKit's parser: words that keep their quotes, name=value pairs,
// JSON arrays, whitespace lists and HEALTHCHECK's type word. Pure; errors are plain messages.
import { isGoSpace, splitWhitespace, trimLeftSpace } from "./text.js";

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

/** Splits on unquoted whitespace, keeping quotes and escapes in the words (BuildKit's parseWords). */
export function parseWords(rest: string, escapeChar: string): string[] {
  const words: string[] = [];
  const chars = Array.from(rest);
  let word = "";
  let inWord = false;
  let quote = "";
  let blankOk = false;
  for (let i = 0; i < chars.length; i++) {
    let ch = chars[i]!;
    if (!inWord && quote === "") {
      if (isGoSpace(ch)) continue;
      inWord = true;
    }
    if (quote === "") {
      if (isGoSpace(ch)) {
        if (blankOk || word.length > 0) words.push(word);
        word = "";
        blankOk = false;
        inWord = false;
        continue;
      }
      if (ch === "'" || ch === '"') {
        quote = ch;
        blankOk = true;
      } else if (ch === escapeChar) {
        if (i + 1 === chars.length) continue;
        word += ch;
        ch = chars[++i]!;
      }
      word += ch;
      continue;
    }
    if (ch === quote) quote = "";
    else if (ch === escapeChar && quote !== "'") {
      if (i + 1 === chars.length) {
        quote = "";
        continue;
      }
      word += ch;
      ch = chars[++i]!;
    }
    word += ch;
  }
  if ((inWord || quote !== "") && (blankOk || word.length > 0)) words.push(word);
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
