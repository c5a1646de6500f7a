// `baton admin task answer <task-id>`: in manual agent mode (`baton serve --agent manual`) ends a task's waiting
// turn with a reply, a clarifying question or a failure, and prints the task's status once the turn has ended
// (or the service's answer with --json).

import type { Command } from "commander";
import { answerAdminTurn } from "../../../client/admin-client.js";
import { UsageError } from "../../../errors.js";
import type { CommandContext } from "../../context.js";
import { writeJson, writeLine } from "../../io.js";

interface Flags {
  url: string;
  reply?: string;
  clarify?: string;
  fail?: string;
  json?: boolean;
}

/** Exactly one of --reply, --clarify, --fail: which one is how the turn ends. */
function pickAnswer(flags: Flags): { kind: "reply" | "clarify" | "fail"; text: string } {
  const given = (["reply", "clarify", "fail"] as const).filter((kind) => flags[kind] !== undefined);
  if (given.length !== 1)
    throw new UsageError(
      given.length === 0
        ? "say how the turn ends: --reply <text>, --clarify <question> or --fail <reason>"
        : `give one of --reply, --clarify, --fail, not ${given.map((k) => `--${k}`).join(" and ")}`,
    );
  const kind = given[0]!;
  return { kind, text: flags[kind]! };
}

export function declare(command: Command, { io, action }: CommandContext): void {
  command
    .argument("<task-id>", "the task whose waiting turn to answer (from the public API's task list)")
    .requiredOption("--url <url>", "the service address (its admin API)")
    .option("--reply <text>", "end the turn with this reply from the agent (status replied)")
    .option("--clarify <question>", "end the turn with this question back to the member")
    .option("--fail <reason>", "end the turn as failed with this reason (status failed)")
    .option("--json", "print the service's answer as JSON")
    .action(
      action(async (taskId: string, flags: Flags) => {
        const answer = pickAnswer(flags);
        const answered = await answerAdminTurn({ url: flags.url, env: io.env }, { taskId, ...answer });
        if (flags.json) writeJson(io.stdout, answered);
        else
          writeLine(
            io.stdout,
            `${answered.taskId}: the turn ended with your ${answered.kind}; the task is ${answered.status}. Read it with GET /v1/workspaces/${answered.workspaceId}/tasks/${answered.taskId}/messages`,
          );
        return undefined;
      }),
    );
}
