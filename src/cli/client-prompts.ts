// Questions the client asks a person at the terminal (never a script: callers check for a terminal first).
import { parseWorkspaceAnswer } from "../client/login-rules.js";
import type { Workspace } from "../client/schemas.js";
import { type CliIo, writeLines } from "./io.js";
import { readLineFromTerminal } from "./terminal.js";

/** Reference rule 7: after sign-in, a user of several workspaces picks the default (numbered choice). */
export async function askForWorkspace(io: CliIo, workspaces: readonly Workspace[]): Promise<Workspace> {
  writeLines(io.stderr, [
    "You belong to several workspaces. Which one should be the default?",
    ...workspaces.map((w, i) => `  ${i + 1}. ${w.name} (${w.id})`),
  ]);
  for (;;) {
    const answer = await readLineFromTerminal(io, `Default workspace [1-${workspaces.length}]: `);
    const chosen = parseWorkspaceAnswer(answer, workspaces);
    if (chosen) return chosen;
    writeLines(io.stderr, [`Answer with a number from 1 to ${workspaces.length}.`]);
  }
}
