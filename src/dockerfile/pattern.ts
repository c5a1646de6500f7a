// Shell patterns in `${v#p}`, `${v%p}` and `${v/p/r}`: `*`, `?` and backslash escapes, no bracket expressions.
import { ExpansionError } from "./expansion-error.js";

const REGEX_SPECIAL = new Set(["[", "]", "{", "}", ".", "+", "(", ")", "|", "^", "$"]);

export interface PatternOptions {
  greedy: boolean;
  anchored: boolean;
  global?: boolean;
}

export function compileShellPattern(pattern: string, options: PatternOptions): RegExp {
  const chars = Array.from(pattern);
  let out = options.anchored ? "^" : "";
  for (let i = 0; i < chars.length; i++) {
    let ch = chars[i]!;
    if (ch === "*") {
      out += options.greedy ? "[^\\n]*" : "[^\\n]*?";
      continue;
    }
    if (ch === "?") {
      out += "[^\\n]";
      continue;
    }
    if (ch === "\\") {
      const after = chars[i + 1];
      // `}` and `/` are escaped only to get them past the ${} syntax; the escape is not part of the pattern.
      if (after === "}" || after === "/") continue;
      i++;
      if (after !== "*" && after !== "?" && after !== "\\") {
        throw new ExpansionError(
          `invalid pattern (${pattern}) in substitution: invalid escape '\\${after ?? ""}'`,
        );
      }
      out += `\\${after}`;
      continue;
    }
    if (REGEX_SPECIAL.has(ch)) ch = `\\${ch}`;
    out += ch;
  }
  return new RegExp(out, options.global ? "gu" : "u");
}

export function trimPatternPrefix(pattern: string, value: string, greedy: boolean): string {
  const match = compileShellPattern(pattern, { greedy, anchored: true }).exec(value);
  return match ? value.slice(match.index + match[0].length) : value;
}

/** Reverses a pattern keeping each escape before the character it escapes: `a\*c` becomes `c\*a`. */
function reversePattern(pattern: string): string {
  const chars = Array.from(pattern);
  const out: string[] = new Array(chars.length);
  const last = chars.length - 1;
  for (let i = 0; i <= last; ) {
    const at = last - i;
    if (chars[i] === "\\" && i !== last) {
      out[at - 1] = "\\";
      out[at] = chars[i + 1]!;
      i += 2;
    } else {
      out[at] = chars[i]!;
      i++;
    }
  }
  return out.join("");
}

function reverseString(text: string): string {
  return Array.from(text).reverse().join("");
}

/** Shortest (or longest) suffix match, found as a prefix match on the reversed text, as BuildKit does. */
export function trimPatternSuffix(pattern: string, value: string, greedy: boolean): string {
  return reverseString(trimPatternPrefix(reversePattern(pattern), reverseString(value), greedy));
}
