// The store's generic helpers (claims, rate windows) put table and column names into SQL text, where a
// placeholder cannot go: they take only plain lower-case identifiers, so no name can smuggle SQL in, and the
// same name means the same table on both engines (PostgreSQL folds unquoted names to lower case).
import { BatonError } from "../../errors.js";

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
const ORDER_TERM = /^([a-z_][a-z0-9_]{0,62})(?:\s+(asc|desc))?$/i;

/** Returns `name` when it is a plain identifier; throws naming `what` otherwise. */
export function checkIdentifier(name: string, what: string): string {
  if (!IDENTIFIER.test(name)) {
    throw new BatonError(
      "internal",
      `${what} ${JSON.stringify(name)} is not a plain identifier: use lower-case letters, digits and _ (at most 63), starting with a letter or _`,
    );
  }
  return name;
}

/** Returns an ORDER BY list of plain column names, each optionally ASC or DESC; throws otherwise. */
export function checkOrderBy(order: string): string {
  const terms = order.split(",").map((term) => term.trim());
  for (const term of terms) {
    const match = ORDER_TERM.exec(term);
    if (!match || !IDENTIFIER.test(match[1]!)) {
      throw new BatonError(
        "internal",
        `the claim order ${JSON.stringify(order)} must list plain column names, each optionally followed by ASC or DESC (e.g. "created_ms, id")`,
      );
    }
  }
  return terms.join(", ");
}
