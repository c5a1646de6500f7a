// Expansion of one instruction word, with the failure turned into an error that names the Dockerfile line.
import { type EscapeCharacter, ExpansionError, processWord } from "./lexer.js";
import type { ExpansionBudget } from "./limits.js";
import { lineError } from "./parse.js";

/** What every word of one Dockerfile expands with: its escape character and its shared work budget. */
export interface ExpansionContext {
  escape: EscapeCharacter;
  budget: ExpansionBudget;
}

/** Expands one word for an instruction, naming the line on failure. */
export function expandAt(
  word: string,
  env: ReadonlyMap<string, string>,
  line: number,
  context: ExpansionContext,
  maxLength?: number,
): string {
  try {
    return processWord(word, env, {
      escape: context.escape,
      budget: context.budget,
      ...(maxLength !== undefined ? { maxLength } : {}),
    }).value;
  } catch (error) {
    if (error instanceof ExpansionError) throw lineError(line, error.message, error);
    throw error;
  }
}
