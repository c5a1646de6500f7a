// The decisions of `baton login` (reference rule 7), pure: how the token is obtained, and which workspace
// becomes the default. src/cli/commands/login.ts does the reading, asking and saving.
import type { Workspace } from "./schemas.js";

export type LoginMode =
  /** --token at a terminal: typed without echo. */
  | "token-typed"
  /** stdin is a pipe: its content is the token (unless --no-browser). */
  | "token-piped"
  /** Browser sign-in; with --no-browser only the URL is printed. */
  | "browser";

export function chooseLoginMode(input: {
  token: boolean;
  browser: boolean;
  stdinIsTerminal: boolean;
}): LoginMode {
  if (input.token) return input.stdinIsTerminal ? "token-typed" : "token-piped";
  if (!input.stdinIsTerminal && input.browser) return "token-piped";
  return "browser";
}

export type DefaultChoice =
  | { kind: "chosen"; workspace: Workspace }
  /** -w names a workspace that is not the user's: refuse, save nothing. */
  | { kind: "not-yours"; id: string }
  /** Several workspaces and nobody to ask: save no default. */
  | { kind: "none-several" }
  | { kind: "none-empty" }
  /** Several workspaces and a person at the terminal: ask. */
  | { kind: "ask" };

export function chooseDefaultWorkspace(input: {
  flag: string | undefined;
  workspaces: readonly Workspace[];
  canAsk: boolean;
}): DefaultChoice {
  const { flag, workspaces } = input;
  if (flag !== undefined) {
    const found = workspaces.find((w) => w.id === flag);
    return found ? { kind: "chosen", workspace: found } : { kind: "not-yours", id: flag };
  }
  if (workspaces.length === 0) return { kind: "none-empty" };
  if (workspaces.length === 1) return { kind: "chosen", workspace: workspaces[0]! };
  return input.canAsk ? { kind: "ask" } : { kind: "none-several" };
}

/** A numbered answer (1-based) to the workspace question, or undefined when it is not one of the numbers. */
export function parseWorkspaceAnswer(
  answer: string,
  workspaces: readonly Workspace[],
): Workspace | undefined {
  const trimmed = answer.trim();
  if (!/^\d+$/.test(trimmed)) return workspaces.find((w) => w.id === trimmed);
  return workspaces[Number(trimmed) - 1];
}
