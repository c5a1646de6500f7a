// Agent instruction files a checkout carries (AGENTS.md and the like): when any exists, the pull request must
// report the checks they require. Only existence is checked; nothing is read.
import { lstat } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";

/** The files coding agents read for a repository's rules, relative to the checkout root. */
export const AGENT_INSTRUCTION_FILES = [
  "AGENTS.md",
  "AGENT.md",
  "CLAUDE.md",
  "GEMINI.md",
  ".github/copilot-instructions.md",
  ".cursorrules",
  ".windsurfrules",
] as const;

/** The instruction files present in `checkoutPath` (the handoff's own path first), relative to it. */
export async function findAgentInstructionFiles(
  checkoutPath: string,
  handoffPath: string | null,
): Promise<string[]> {
  const candidates = new Set<string>();
  if (handoffPath) {
    const rel = isAbsolute(handoffPath) ? relative(checkoutPath, handoffPath) : handoffPath;
    if (!rel.startsWith("..") && !isAbsolute(rel)) candidates.add(rel);
  }
  for (const name of AGENT_INSTRUCTION_FILES) candidates.add(name);
  const found: string[] = [];
  for (const name of candidates) {
    const info = await lstat(join(checkoutPath, name)).catch(() => null);
    if (info && (info.isFile() || info.isSymbolicLink())) found.push(name);
  }
  return found;
}
