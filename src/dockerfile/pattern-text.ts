// The value a shell pattern is matched against: its code points (what Go's runes and a `u` RegExp step over),
// with the UTF-16 offsets to slice it by and where each line ends (a `*` or `?` stops at a newline).

export const NEWLINE = 0x0a;

/** A value as code points (what Go's runes and a `u` RegExp step over), with UTF-16 offsets to slice by. */
export class PatternText {
  readonly points: Int32Array;
  /** UTF-16 offset of each code point (and of the end); null when every code point is one unit. */
  private readonly offsets: Uint32Array | null;
  private nextNewlineAt: Int32Array | null = null;

  constructor(readonly value: string) {
    if (!/[\ud800-\udfff]/.test(value)) {
      const points = new Int32Array(value.length);
      for (let i = 0; i < value.length; i++) points[i] = value.charCodeAt(i);
      this.points = points;
      this.offsets = null;
      return;
    }
    const points: number[] = [];
    const offsets: number[] = [];
    for (let at = 0; at < value.length; ) {
      const cp = value.codePointAt(at)!;
      points.push(cp);
      offsets.push(at);
      at += cp > 0xffff ? 2 : 1;
    }
    offsets.push(value.length);
    this.points = Int32Array.from(points);
    this.offsets = Uint32Array.from(offsets);
  }

  get length(): number {
    return this.points.length;
  }

  /** The text between two code point positions. */
  slice(start: number, end: number = this.points.length): string {
    if (this.offsets === null) return this.value.slice(start, end);
    return this.value.slice(this.offsets[start], this.offsets[end]);
  }

  /** Position of the first newline at or after `at` (the length when none): where a `*` must stop. */
  nextNewline(at: number): number {
    if (at >= this.points.length) return this.points.length;
    if (this.nextNewlineAt === null) {
      const n = this.points.length;
      const table = new Int32Array(n + 1);
      table[n] = n;
      for (let i = n - 1; i >= 0; i--) table[i] = this.points[i] === NEWLINE ? i : table[i + 1]!;
      this.nextNewlineAt = table;
    }
    return this.nextNewlineAt[at]!;
  }

  reversed(): PatternText {
    return new PatternText(Array.from(this.value).reverse().join(""));
  }
}
