// The store's queries use SQLite's `?` placeholders; PostgreSQL numbers them. Rewrites each `?` outside quoted
// text, quoted identifiers and comments to `$1`, `$2`, … (cached: the store runs a small, fixed set of texts).

const rewritten = new Map<string, string>();

export function numberPlaceholders(sql: string): string {
  let text = rewritten.get(sql);
  if (text === undefined) {
    text = rewrite(sql);
    rewritten.set(sql, text);
  }
  return text;
}

function rewrite(sql: string): string {
  let out = "";
  let n = 0;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      const end = closingQuote(sql, i, ch);
      out += sql.slice(i, end);
      i = end;
    } else if (ch === "-" && sql[i + 1] === "-") {
      const end = sql.indexOf("\n", i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      const stop = end === -1 ? sql.length : end + 2;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === "?") {
      n += 1;
      out += `$${n}`;
      i += 1;
    } else {
      out += ch;
      i += 1;
    }
  }
  return out;
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
