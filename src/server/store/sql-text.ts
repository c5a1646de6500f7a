// SQL text as code and not-code: quoted text, quoted identifiers and comments are never rewritten or split (a
// `?` or `;` inside them is not a placeholder or a statement's end). Shared by the placeholder numbering and the
// migrations' DDL translation.

export interface Segment {
  text: string;
  /** False for quoted text, quoted identifiers and comments, which are copied as they are. */
  code: boolean;
}

/** `sql` cut into consecutive segments whose texts join back into `sql`. */
export function segmentsOf(sql: string): Segment[] {
  const segments: Segment[] = [];
  let start = 0;
  let i = 0;
  const cut = (end: number, code: boolean) => {
    if (end > start) segments.push({ text: sql.slice(start, end), code });
    start = end;
  };
  while (i < sql.length) {
    const ch = sql[i]!;
    let end = -1;
    if (ch === "'" || ch === '"') end = closingQuote(sql, i, ch);
    else if (ch === "-" && sql[i + 1] === "-") end = lineEnd(sql, i);
    else if (ch === "/" && sql[i + 1] === "*") end = commentEnd(sql, i);
    if (end === -1) {
      i += 1;
      continue;
    }
    cut(i, true);
    cut(end, false);
    i = end;
  }
  cut(sql.length, true);
  return segments;
}

function lineEnd(sql: string, start: number): number {
  const end = sql.indexOf("\n", start);
  return end === -1 ? sql.length : end;
}

function commentEnd(sql: string, start: number): number {
  const end = sql.indexOf("*/", start + 2);
  return end === -1 ? sql.length : end + 2;
}

/** The index just past the quote that closes the one at `start` (a doubled quote stands for itself). */
function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i += 1;
  }
  return sql.length;
}
