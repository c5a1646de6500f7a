// `baton tasks [-w <id>] [--status <status>] [-n <n>] [--json]`: the most recently active tasks of a workspace.
import type { Command } from "commander";
import { addWorkspaceFlag, chooseWorkspace, JSON_FLAG, JSON_HELP, withSession } from "../client-command.js";
import { renderTaskTable } from "../client-render.js";
import type { CommandContext } from "../context.js";
import { wholeNumberIn } from "../flags.js";
import { writeJson, writeLines } from "../io.js";

/** The client's page size (reference section 8: "client default 20"), within the API's 1 to 100. */
export const TASKS_LIMIT = { min: 1, max: 100, default: 20 } as const;

interface TasksOptions {
  workspace?: string;
  status?: string;
  limit: number;
  json?: boolean;
}

export function declare(command: Command, context: CommandContext): void {
  addWorkspaceFlag(command.summary("list the most recently active tasks"))
    .option("--status <status>", "only tasks in this status, e.g. replied")
    .option(
      "-n, --limit <n>",
      `how many, ${TASKS_LIMIT.min} to ${TASKS_LIMIT.max}`,
      wholeNumberIn(TASKS_LIMIT.min, TASKS_LIMIT.max),
      TASKS_LIMIT.default,
    )
    .option(JSON_FLAG, JSON_HELP)
    .action(
      context.action(async (options: TasksOptions) => {
        const page = await withSession(context, (session) =>
          session.api.listTasks(chooseWorkspace(options.workspace, session.config), {
            ...(options.status === undefined ? {} : { status: options.status }),
            limit: options.limit,
          }),
        );
        if (options.json) writeJson(context.io.stdout, page);
        else writeLines(context.io.stdout, renderTaskTable(page.tasks));
        return undefined;
      }),
    );
}
