// Prints a parsed instruction the way BuildKit's parser test dumps its AST, so results compare line for line.
import type { Instruction } from "../../../src/dockerfile/parse.js";
import { quoteGo } from "../../../src/dockerfile/text.js";

export function dumpInstruction(
  instruction: Instruction | Omit<Instruction, "startLine" | "endLine">,
): string {
  let out = instruction.keyword;
  if (instruction.flags.length > 0) out += ` [${instruction.flags.map(quoteGo).join(" ")}]`;
  if (instruction.sub) out += ` ${dumpInstruction(instruction.sub)}`;
  for (const value of instruction.args.values) out += ` ${quoteGo(value)}`;
  return `(${out.trim()})`;
}
