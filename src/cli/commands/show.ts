// `baton show [-w <id>] [--json] <task-id>`: the task and its whole conversation (every page, oldest first).
// A task started elsewhere (an issue tracker, a code-host issue) has its conversation there: 409 not_an_api_task
// is explained rather than passed on.
import type { Command } from "commander";
import type { ApiClient } from "../../client/api-client.js";
import type { Message, Task } from "../../client/schemas.js";
import { BatonError, isBatonError } from "../../errors.js";
import type { ApiErrorCode } from "../../server/surfaces/api/wire.js";
import { addWorkspaceFlag, chooseWorkspace, JSON_FLAG, JSON_HELP, withSession } from "../client-command.js";
import { renderConversation, renderTask } from "../client-render.js";
import type { CommandContext } from "../context.js";
import { writeJson, writeLines } from "../io.js";

const NOT_AN_API_TASK: ApiErrorCode = "not_an_api_task";

export function declare(command: Command, context: CommandContext): void {
  addWorkspaceFlag(command.summary("print a task and its conversation"))
    .argument("<task-id>", "the task, e.g. tsk_…")
    .option(JSON_FLAG, JSON_HELP)
    .action(
      context.action(async (taskId: string, options: { workspace?: string; json?: boolean }) => {
        const { task, messages } = await withSession(context, async (session) => {
          const workspaceId = chooseWorkspace(options.workspace, session.config);
          const task = await session.api.getTask(workspaceId, taskId);
          return { task, messages: await readConversation(session.api, workspaceId, task) };
        });
        if (options.json) writeJson(context.io.stdout, { task, messages });
        else writeLines(context.io.stdout, [...renderTask(task), ...renderConversation(messages)]);
        return undefined;
      }),
    );
}

async function readConversation(api: ApiClient, workspaceId: string, task: Task): Promise<Message[]> {
  const messages: Message[] = [];
  let after: string | undefined;
  try {
    for (;;) {
      const page = await api.listMessages(workspaceId, task.id, after === undefined ? {} : { after });
      messages.push(...page.messages);
      // A cursor that does not move would page forever: the conversation ends where the service stops moving.
      if (page.next === null || page.next === after) return messages;
      after = page.next;
    }
  } catch (error) {
    if (isBatonError(error) && error.details?.wireError === NOT_AN_API_TASK) {
      throw new BatonError(
        "conflict",
        `task ${task.id} was started from ${describeSource(task.source)}, so its conversation is kept there, not in baton ` +
          `(${task.status}${task.repo ? `, ${task.repo}` : ""}). baton tasks lists it and baton stop ${task.id} stops it`,
        { cause: error, details: error.details },
      );
    }
    throw error;
  }
}

function describeSource(source: string): string {
  if (source === "tracker") return "an issue tracker";
  if (source === "codehost_issue") return "a code-host issue";
  return `elsewhere (${source})`;
}
