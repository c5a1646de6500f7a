// Expansion of one instruction word, with the failure turned into an error that names the Dockerfile line.
import { ExpansionError, processWord } from "./lexer.js";
import { lineError } from "./parse.js";

/** Expands one word for an instruction, naming the line on failure. */
export function expandAt(
  word: string,
  env: ReadonlyMap<string, string>,
  line: number,
  escapeChar: string,
): string {
  try {
    return processWord(word, env, { escape: escapeChar as "\\" | "`" }).value;
  } catch (error) {
    if (error instanceof ExpansionError) throw lineError(line, error.message, error);
    throw error;
  }
}
