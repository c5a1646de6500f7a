// The store's queries use SQLite's `?` placeholders; PostgreSQL numbers them. Rewrites each `?` outside quoted
// text, quoted identifiers and comments to `$1`, `$2`, … (cached: the store runs a small, fixed set of texts).

import { segmentsOf } from "./sql-text.js";

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
  let n = 0;
  return segmentsOf(sql)
    .map((segment) =>
      segment.code
        ? segment.text.replaceAll("?", () => {
            n += 1;
            return `$${n}`;
          })
        : segment.text,
    )
    .join("");
}
