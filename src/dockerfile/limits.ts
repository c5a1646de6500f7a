// The bounds that keep a hostile Dockerfile from taking seconds or gigabytes: each one is far above what a real
// Dockerfile needs, and crossing it is an InputError naming the line (the README lists them).
import { ExpansionError } from "./expansion-error.js";

/** The Dockerfile itself: real ones are tens of kilobytes. */
export const MAX_DOCKERFILE_BYTES = 1024 * 1024;
/** Instructions in one Dockerfile (a 1 MiB file of `RUN x` lines would otherwise be 175,000 steps). */
export const MAX_INSTRUCTIONS = 10_000;
/**
 * One resolved value (an ENV or ARG value, a WORKDIR, any expanded word), in characters: Linux refuses a
 * longer single environment string to any process (MAX_ARG_STRLEN, 128 KiB), so no RUN step could get it.
 */
export const MAX_VALUE_LENGTH = 128 * 1024;
/** `${a:-${b:-...}}` nesting; each level is a few stack frames. */
export const MAX_NESTING = 64;
/**
 * Expansion work for a whole Dockerfile: characters produced by variable references plus the steps the shell
 * patterns of `#`, `%` and `/` take: a few hundredths of a second here.
 */
export const MAX_EXPANSION_WORK = 16_000_000;
/**
 * Characters the plan's steps carry in all: each RUN step every ENV and ARG value in force, its WORKDIR and SHELL;
 * each WORKDIR and SHELL step its own; each stage continuing another the values it copies. A long value, path or
 * shell argument, or many variables, followed by thousands of lines cannot make a plan of gigabytes.
 */
export const MAX_CARRIED_ENVIRONMENT = 16 * 1024 * 1024;
/**
 * Variables copied in all into stages that continue another (`FROM <stage>` copies every ENV and ARG in force):
 * each copy costs per variable whatever the values' length, so short names alone stay within the carried bound.
 */
export const MAX_COPIED_VARIABLES = 250_000;

/** Work left for one Dockerfile's expansions; shared by every word of it. */
export interface ExpansionBudget {
  remaining: number;
}

export function createExpansionBudget(limit = MAX_EXPANSION_WORK): ExpansionBudget {
  return { remaining: limit };
}

export function expansionWorkError(): ExpansionError {
  return new ExpansionError(
    `variable expansion in this Dockerfile takes more than ${MAX_EXPANSION_WORK} steps up to here ` +
      "(very long values, many references to them, or costly ${…#…} / ${…/…} patterns); shorten them",
  );
}

/** Charges `units` of work; throws an ExpansionError once the budget is spent. */
export function chargeExpansion(budget: ExpansionBudget, units: number): void {
  budget.remaining -= units;
  if (budget.remaining < 0) throw expansionWorkError();
}

export function valueTooLongError(): ExpansionError {
  return new ExpansionError(
    `the value would be longer than ${MAX_VALUE_LENGTH} characters, the limit for one resolved value ` +
      "(Linux refuses a longer environment string to every process)",
  );
}
