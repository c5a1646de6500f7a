// `baton stop [-w <id>] <task-id>`: stops the task's running turn (any member may, whatever the task's source).
import type { Command } from "commander";
import { addWorkspaceFlag, chooseWorkspace, withSession } from "../client-command.js";
import type { CommandContext } from "../context.js";
import { writeLine } from "../io.js";

export function declare(command: Command, context: CommandContext): void {
  addWorkspaceFlag(command.summary("stop a task's running turn"))
    .argument("<task-id>", "the task, e.g. tsk_…")
    .action(
      context.action(async (taskId: string, options: { workspace?: string }) => {
        await withSession(context, (session) =>
          session.api.stopTask(chooseWorkspace(options.workspace, session.config), taskId),
        );
        writeLine(
          context.io.stdout,
          `Stopping task ${taskId}: its running turn ends shortly. Resume it with: baton reply ${taskId} "…"`,
        );
        return undefined;
      }),
    );
}
