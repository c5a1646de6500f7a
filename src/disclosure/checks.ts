// Parses `--check <name>=<passed|failed|not_run>[:<note>]` values. Pure.
import { UsageError } from "../errors.js";
import { CHECK_RESULTS, type CheckResult, type RequiredCheck } from "./types.js";

const CHECK_PATTERN = /^([^=\s][^=]*)=([a-z_]+)(?::(.*))?$/s;

export function parseCheckFlag(value: string): RequiredCheck {
  const match = CHECK_PATTERN.exec(value.trim());
  const result = match?.[2] as CheckResult | undefined;
  if (!match || !result || !CHECK_RESULTS.includes(result)) {
    throw new UsageError(
      `--check must look like <name>=<${CHECK_RESULTS.join("|")}>[:<note>], e.g. "npm test=not_run:needs a database"`,
    );
  }
  const note = match[3]?.trim();
  return { name: match[1]!.trim(), result, note: note ? note : null };
}
