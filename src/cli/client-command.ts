// What the signed-in client commands share: the -w and --json flags, opening the saved sign-in for one
// invocation (and closing its connections after), and the workspace the command acts in.
import type { Command } from "commander";
import { type ClientSession, chooseWorkspace, openSession } from "../client/session.js";
import type { CommandContext } from "./context.js";

export const WORKSPACE_FLAG = "-w, --workspace <workspace-id>";
export const WORKSPACE_HELP = "workspace; default is the saved one (baton workspace)";
export const JSON_FLAG = "--json";
export const JSON_HELP = "print one JSON document only";

export function addWorkspaceFlag(command: Command, help = WORKSPACE_HELP): Command {
  return command.option(WORKSPACE_FLAG, help);
}

/** Runs `use` with the saved sign-in; the API client's kept-alive connections close afterwards. */
export async function withSession<T>(
  context: CommandContext,
  use: (session: ClientSession) => Promise<T>,
): Promise<T> {
  const session = await openSession({ env: context.io.env, log: context.log });
  try {
    return await use(session);
  } finally {
    session.api.close();
  }
}

export { chooseWorkspace };
