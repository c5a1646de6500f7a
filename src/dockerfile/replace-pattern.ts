// `${v/pattern/replacement}` and `${v//pattern/replacement}` as BuildKit evaluates them: the first is the
// leftmost-longest match replaced literally; the second is Go's Regexp.ReplaceAllString, whose replacement is
// a template (`$0` and `${0}` are the match, `$$` a dollar, any other `$name` empty) and which skips an empty
// match right after a previous match.
import { type ExpansionBudget, MAX_VALUE_LENGTH, valueTooLongError } from "./limits.js";
import { PatternMatcher, parseShellPattern } from "./pattern.js";
import { PatternText } from "./pattern-text.js";
import { isDigit, isLetter } from "./text.js";

/** Go's regexp.extract: a `name` or `{name}` after `$`; null when malformed (the `$` is then kept). */
function extractName(template: string, at: number): { name: string; next: number } | null {
  let i = at;
  const brace = template[i] === "{";
  if (brace) i++;
  const start = i;
  while (i < template.length) {
    const cp = template.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    if (!isLetter(ch) && !isDigit(ch) && ch !== "_") break;
    i += ch.length;
  }
  if (i === start) return null;
  const name = template.slice(start, i);
  if (brace) {
    if (template[i] !== "}") return null;
    i++;
  }
  return { name, next: i };
}

/** Go's Regexp.Expand for a pattern with no groups: only group 0, the whole match, has a value. */
export function expandReplacementTemplate(template: string, match: string): string {
  if (!template.includes("$")) return template;
  let out = "";
  let i = 0;
  for (;;) {
    const dollar = template.indexOf("$", i);
    if (dollar < 0) break;
    out += template.slice(i, dollar);
    i = dollar + 1;
    if (template[i] === "$") {
      out += "$";
      i++;
      continue;
    }
    const extracted = extractName(template, i);
    if (extracted === null) {
      out += "$";
      continue;
    }
    i = extracted.next;
    if (extracted.name === "0") out += match;
  }
  return out + template.slice(i);
}

function checkLength(length: number, maxLength: number): void {
  if (length > maxLength) throw valueTooLongError();
}

export function replacePattern(
  pattern: string,
  value: string,
  replacement: string,
  options: { all: boolean; budget: ExpansionBudget; maxLength?: number },
): string {
  const maxLength = options.maxLength ?? MAX_VALUE_LENGTH;
  const text = new PatternText(value);
  const matcher = new PatternMatcher(parseShellPattern(pattern), text, options.budget);
  if (!options.all) {
    const match = matcher.leftmost(0);
    if (match === null) return value;
    const before = text.slice(0, match[0]);
    const after = text.slice(match[1]);
    checkLength(before.length + replacement.length + after.length, maxLength);
    return before + replacement + after;
  }
  const parts: string[] = [];
  let length = 0;
  const append = (part: string) => {
    length += part.length;
    checkLength(length, maxLength);
    parts.push(part);
  };
  let lastEnd = 0;
  for (let from = 0; from <= text.length; ) {
    const match = matcher.leftmost(from);
    if (match === null) break;
    const [start, end] = match;
    append(text.slice(lastEnd, start));
    // Go: no replacement for an empty match right after the previous match.
    if (end > lastEnd || start === 0) append(expandReplacementTemplate(replacement, text.slice(start, end)));
    lastEnd = end;
    from = end > from ? end : from + 1;
  }
  append(text.slice(lastEnd));
  return parts.join("");
}
