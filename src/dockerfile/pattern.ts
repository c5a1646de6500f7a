// Shell patterns in `${v#p}`, `${v%p}` and `${v/p/r}`: `*`, `?` and backslash escapes, no bracket expressions.
// BuildKit turns them into Go regular expressions (`*` is `.*` or `.*?`, `?` is `.`, neither crosses a newline)
// and takes Go's leftmost-first match. For this pattern class that match is, from the leftmost start that
// matches at all, the longest (greedy) or shortest (lazy) one, and placing every segment between stars at its
// earliest spot keeps every later choice open. So a match is found by scanning for segments, never by
// backtracking: at most (value length × longest segment) steps, charged to the Dockerfile's expansion budget.
import { ExpansionError } from "./expansion-error.js";
import { chargeExpansion, createExpansionBudget, type ExpansionBudget } from "./limits.js";
import { NEWLINE, PatternText } from "./pattern-text.js";

const ANY = -1;

/** A run of pattern characters between stars: code points, or ANY for `?`. */
interface Segment {
  atoms: Int32Array;
  /** Offset of the first literal newline, -1 when none: such a segment can sit at only one spot per line. */
  firstNewline: number;
  /** Whether any atom is `?` (a literal-only segment compares characters and nothing else). */
  hasAny: boolean;
}

/** `L0 * L1 * ... * Lk`: consecutive stars are one star; k is `segments.length - 1`. */
export interface ShellPattern {
  segments: Segment[];
}

function toSegment(atoms: number[]): Segment {
  return { atoms: Int32Array.from(atoms), firstNewline: atoms.indexOf(NEWLINE), hasAny: atoms.includes(ANY) };
}

/** Parses a pattern as BuildKit's convertShellPatternToRegex reads it; an invalid escape is BuildKit's error. */
export function parseShellPattern(pattern: string): ShellPattern {
  const chars = Array.from(pattern);
  const segments: Segment[] = [];
  let atoms: number[] = [];
  let afterStar = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === "*") {
      if (!afterStar) segments.push(toSegment(atoms));
      atoms = [];
      afterStar = true;
      continue;
    }
    afterStar = false;
    if (ch === "?") {
      atoms.push(ANY);
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
      atoms.push(after.codePointAt(0)!);
      continue;
    }
    atoms.push(ch.codePointAt(0)!);
  }
  segments.push(toSegment(atoms));
  return { segments };
}

/** Finds matches of one pattern in one text; every compared character is charged to the budget. */
export class PatternMatcher {
  private readonly segments: Segment[];
  private readonly stars: number;

  constructor(
    pattern: ShellPattern,
    private readonly text: PatternText,
    private readonly budget: ExpansionBudget,
  ) {
    this.segments = pattern.segments;
    this.stars = pattern.segments.length - 1;
    chargeExpansion(budget, text.length + 1);
  }

  private matchesAt(segment: Segment, at: number): boolean {
    const atoms = segment.atoms;
    const points = this.text.points;
    if (at < 0 || at + atoms.length > points.length) return false;
    let j = 0;
    if (segment.hasAny) {
      for (; j < atoms.length; j++) {
        const atom = atoms[j]!;
        const ch = points[at + j]!;
        if (atom === ANY ? ch === NEWLINE : ch !== atom) break;
      }
    } else {
      while (j < atoms.length && points[at + j] === atoms[j]) j++;
    }
    chargeExpansion(this.budget, j + 1);
    return j === atoms.length;
  }

  /**
   * Places segment `index` after a star that starts at `from`: the star stops at the next newline, so the
   * segment starts at or before it. Earliest spot, or the latest when `latest` (the last segment, greedy).
   */
  private place(index: number, from: number, latest: boolean): number {
    const segment = this.segments[index]!;
    const lineEnd = this.text.nextNewline(from);
    if (segment.firstNewline >= 0) {
      const at = lineEnd - segment.firstNewline;
      return at >= from && this.matchesAt(segment, at) ? at : -1;
    }
    const last = lineEnd - segment.atoms.length;
    if (latest) {
      for (let at = last; at >= from; at--) if (this.matchesAt(segment, at)) return at;
    } else {
      for (let at = from; at <= last; at++) if (this.matchesAt(segment, at)) return at;
    }
    return -1;
  }

  /** Places the segments after the first one, which ends at `end`; the match's end, or -1. */
  private restEnd(end: number, greedy: boolean): number {
    let at = end;
    for (let i = 1; i <= this.stars; i++) {
      const start = this.place(i, at, greedy && i === this.stars);
      if (start < 0) return -1;
      at = start + this.segments[i]!.atoms.length;
    }
    return at;
  }

  /** End of the match anchored at the start of the text (longest when greedy, else shortest), or -1. */
  anchoredEnd(greedy: boolean): number {
    const first = this.segments[0]!;
    return this.matchesAt(first, 0) ? this.restEnd(first.atoms.length, greedy) : -1;
  }

  /** The leftmost match starting at or after `from`, the longest from that start (greedy): [start, end]. */
  leftmost(from: number): [number, number] | null {
    const first = this.segments[0]!;
    const n = this.text.length;
    const width = first.atoms.length;
    if (this.stars > 0 && first.firstNewline >= 0) {
      // The first segment holds a newline: one candidate start per newline in the text.
      for (let line = this.text.nextNewline(from + first.firstNewline); line < n; ) {
        const start = line - first.firstNewline;
        if (this.matchesAt(first, start)) {
          const end = this.restEnd(start + width, true);
          if (end >= 0) return [start, end];
        }
        line = this.text.nextNewline(line + 1);
      }
      return null;
    }
    for (let start = from; start + width <= n; start++) {
      if (!this.matchesAt(first, start)) continue;
      const end = this.restEnd(start + width, true);
      if (end >= 0) return [start, end];
      // A later start on the same line only narrows what the segments after the star can match: when this
      // start failed, so does every start up to the end of its line.
      start = this.text.nextNewline(start);
    }
    return null;
  }
}

export function trimPatternPrefix(
  pattern: string,
  value: string,
  greedy: boolean,
  budget: ExpansionBudget = createExpansionBudget(),
): string {
  const text = new PatternText(value);
  const end = new PatternMatcher(parseShellPattern(pattern), text, budget).anchoredEnd(greedy);
  return end < 0 ? value : text.slice(end);
}

/** Reverses a pattern keeping each escape before the character it escapes: `a\*c` becomes `c\*a`. */
export function reversePattern(pattern: string): string {
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

/** Shortest (or longest) suffix match, found as a prefix match on the reversed text, as BuildKit does. */
export function trimPatternSuffix(
  pattern: string,
  value: string,
  greedy: boolean,
  budget: ExpansionBudget = createExpansionBudget(),
): string {
  const reversedPattern = parseShellPattern(reversePattern(pattern));
  const text = new PatternText(value).reversed();
  const end = new PatternMatcher(reversedPattern, text, budget).anchoredEnd(greedy);
  return end < 0 ? value : value.slice(0, value.length - text.slice(0, end).length);
}
