// The matcher Baton used before its own: the pattern translated into a JavaScript RegExp, which backtracks.
// Kept only as the reference for the property tests (on small inputs backtracking is harmless), and a
// Go-style ReplaceAll built on it, since BuildKit's `//` is Go's Regexp.ReplaceAllString.

const REGEX_SPECIAL = new Set(["[", "]", "{", "}", ".", "+", "(", ")", "|", "^", "$"]);

function compile(pattern: string, greedy: boolean, anchored: boolean): RegExp {
  const chars = Array.from(pattern);
  let out = anchored ? "^" : "";
  for (let i = 0; i < chars.length; i++) {
    let ch = chars[i]!;
    if (ch === "*") {
      out += greedy ? "[^\\n]*" : "[^\\n]*?";
      continue;
    }
    if (ch === "?") {
      out += "[^\\n]";
      continue;
    }
    if (ch === "\\") {
      const after = chars[i + 1];
      if (after === "}" || after === "/") continue;
      i++;
      if (after !== "*" && after !== "?" && after !== "\\") throw new Error(`invalid escape '\\${after}'`);
      out += `\\${after}`;
      continue;
    }
    if (REGEX_SPECIAL.has(ch)) ch = `\\${ch}`;
    out += ch;
  }
  return new RegExp(out, "gu");
}

function reverseString(text: string): string {
  return Array.from(text).reverse().join("");
}

function reversePattern(pattern: string): string {
  const chars = Array.from(pattern);
  const out: string[] = new Array(chars.length);
  const last = chars.length - 1;
  for (let i = 0; i <= last; ) {
    if (chars[i] === "\\" && i !== last) {
      out[last - i - 1] = "\\";
      out[last - i] = chars[i + 1]!;
      i += 2;
    } else {
      out[last - i] = chars[i]!;
      i++;
    }
  }
  return out.join("");
}

export function oracleTrimPrefix(pattern: string, value: string, greedy: boolean): string {
  const match = compile(pattern, greedy, true).exec(value);
  return match ? value.slice(match.index + match[0].length) : value;
}

export function oracleTrimSuffix(pattern: string, value: string, greedy: boolean): string {
  return reverseString(oracleTrimPrefix(reversePattern(pattern), reverseString(value), greedy));
}

/** `${v/p/r}`: the first (leftmost, then as the RegExp prefers) match replaced literally. */
export function oracleReplaceFirst(pattern: string, value: string, replacement: string): string {
  const match = compile(pattern, true, false).exec(value);
  if (!match) return value;
  return value.slice(0, match.index) + replacement + value.slice(match.index + match[0].length);
}

/** `${v//p/r}` with Go's loop: search from a position, skip an empty match that abuts the previous one. */
export function oracleReplaceAll(pattern: string, value: string, replacement: string): string {
  const re = compile(pattern, true, false);
  let out = "";
  let lastEnd = 0;
  for (let from = 0; from <= value.length; ) {
    re.lastIndex = from;
    const match = re.exec(value);
    if (!match) break;
    const start = match.index;
    const end = start + match[0].length;
    out += value.slice(lastEnd, start);
    if (end > lastEnd || start === 0) out += replacement;
    lastEnd = end;
    if (end > from) from = end;
    else from += (value.codePointAt(from) ?? 0) > 0xffff ? 2 : 1;
  }
  return out + value.slice(lastEnd);
}
