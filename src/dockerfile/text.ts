// Character classes and quoting that match Go's `unicode` and `strconv`, so messages and splits agree with BuildKit.

const LETTER = /^\p{L}$/u;
const DIGIT = /^\p{Nd}$/u;
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

/** Go's unicode.IsSpace: ASCII blanks, NEL, NBSP and the Unicode White_Space characters. */
export function isGoSpace(ch: string): boolean {
  if (ch.length === 1) return isGoSpaceCode(ch.charCodeAt(0));
  switch (ch) {
    case " ":
    case "\t":
    case "\n":
    case "\v":
    case "\f":
    case "\r":
    case "\u0085":
    case "\u00a0":
    case "\u1680":
    case "\u2028":
    case "\u2029":
    case "\u202f":
    case "\u205f":
    case "\u3000":
      return true;
    default:
      return ch >= "\u2000" && ch <= "\u200a";
  }
}

export function isLetter(ch: string): boolean {
  return ch.length > 0 && ch.charCodeAt(0) < 0x80 ? /^[A-Za-z]$/.test(ch) : LETTER.test(ch);
}

export function isDigit(ch: string): boolean {
  return ch.length > 0 && ch.charCodeAt(0) < 0x80 ? ch >= "0" && ch <= "9" : DIGIT.test(ch);
}

const CONTROL_ESCAPES: Record<string, string> = {
  "\u0007": "\\a",
  "\b": "\\b",
  "\f": "\\f",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\v": "\\v",
};

/** Go's strconv.Quote: a double-quoted string with Go escapes. */
export function quoteGo(text: string): string {
  let out = '"';
  for (const ch of text) {
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (PRINTABLE.test(ch)) out += ch;
    else if (CONTROL_ESCAPES[ch]) out += CONTROL_ESCAPES[ch];
    else {
      const cp = ch.codePointAt(0)!;
      if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, "0")}`;
      else if (cp < 0x10000) out += `\\u${cp.toString(16).padStart(4, "0")}`;
      else out += `\\U${cp.toString(16).padStart(8, "0")}`;
    }
  }
  return `${out}"`;
}

/** Splits on runs of `[\t\v\f\r ]`, Go's reWhitespace as the parser uses it. */
export const WHITESPACE_RUN = /[\t\v\f\r ]+/;

export function splitWhitespace(text: string, limit?: number): string[] {
  if (limit === undefined) return text.split(WHITESPACE_RUN);
  const match = WHITESPACE_RUN.exec(text);
  if (!match) return [text];
  return [text.slice(0, match.index), text.slice(match.index + match[0].length)];
}

/** isGoSpace on a UTF-16 code unit (every Go space is in the Basic Multilingual Plane). */
export function isGoSpaceCode(code: number): boolean {
  if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return true;
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** isGoSpaceCode as a global RegExp, for finding blanks in long text at the RegExp engine's speed. */
export const GO_SPACE = /[\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/g;

/** strings.TrimSpace / TrimLeftFunc(unicode.IsSpace). */
export function trimLeftSpace(text: string): string {
  let i = 0;
  while (i < text.length && isGoSpaceCode(text.charCodeAt(i))) i++;
  return i === 0 ? text : text.slice(i);
}

export function trimSpace(text: string): string {
  let end = text.length;
  while (end > 0 && isGoSpaceCode(text.charCodeAt(end - 1))) end--;
  return trimLeftSpace(text.slice(0, end));
}
