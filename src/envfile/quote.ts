// Shell quoting that bash and dash both read back byte for byte. Pure.
import { InputError } from "../errors.js";

/** Matches a UTF-16 surrogate that has no partner; UTF-8 cannot carry it, so it would not round-trip. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Single quotes keep every byte literal in POSIX shells; the only character they cannot hold is `'`
 * itself, written as `'\''` (close, escaped quote, reopen). The result is always quoted, even when empty.
 * Refuses NUL (no environment variable can hold it) and unpaired surrogates (no UTF-8 form).
 */
export function quoteShellValue(value: string): string {
  if (value.includes("\0")) {
    throw new InputError("value contains a NUL byte, which no environment variable can hold");
  }
  if (LONE_SURROGATE.test(value)) {
    throw new InputError("value contains an unpaired UTF-16 surrogate, which has no UTF-8 form");
  }
  return `'${value.replaceAll("'", `'\\''`)}'`;
}
