// `baton reply <task-id> "<text>"`: send a follow-up with any attached files (rule 3) under one idempotency key
// (rule 4), then follow only what comes after it (rules 5 and 6); --no-wait returns at once (--json: {messageId}).
import "./zod-jitless.js";
import type { Command } from "commander";
import type { ApiClient } from "../../client/api-client.js";
import { readLastEntryId } from "../../client/follow-api.js";
import { isTurnDone } from "../../client/follow-step.js";
import { newIdempotencyKey } from "../../client/idempotency.js";
import { withAttachments } from "../../client/read-attachments.js";
import { refusalOf } from "../../client/refusal.js";
import { chooseWorkspace, openSession } from "../../client/session.js";
import type { CommandContext } from "../context.js";
import { collect } from "../flags.js";
import { writeJson, writeLine, writeLines } from "../io.js";
import { addFollowOptions, checkJsonWithoutWait, followAndReport } from "./follow-task.js";

interface Flags {
  file?: string[];
  workspace?: string;
  timeout: number;
  wait: boolean;
  json?: boolean;
}

export function declare(command: Command, { io, log, action }: CommandContext): void {
  command
    .argument("<task-id>", "the task to follow up (from `baton tasks`)")
    .argument("<text...>", "the follow-up; text starting with - goes after --")
    .option("-f, --file <path>", "attach a text file (repeatable; 80 KB together)", collect)
    .option("-w, --workspace <id>", "the workspace (default: the saved one)");
  addFollowOptions(command, {
    sent: "the reply is sent, without following the task",
    json: "{messageId}",
  }).action(
    action(async (taskId: string, words: string[], flags: Flags) => {
      checkJsonWithoutWait(flags);
      const text = await withAttachments(io.cwd, words.join(" "), flags.file ?? []);
      const session = await openSession({ env: io.env, log });
      const { api } = session;
      try {
        const workspaceId = chooseWorkspace(flags.workspace, session.config);
        // Read before sending: what came before the reply is never reported as its answer (rule 6).
        const before = flags.wait
          ? {
              task: await api.getTask(workspaceId, taskId),
              cursor: await readLastEntryId(api, workspaceId, taskId),
            }
          : undefined;
        const sentAt = Date.now();
        const messageId = await sendOnce(api, workspaceId, taskId, text, (line) =>
          writeLine(io.stderr, line),
        );
        if (!before) {
          if (flags.json) writeJson(io.stdout, { messageId });
          else writeLines(io.stdout, [`Sent to task ${taskId}.`, `Follow it with: baton show ${taskId}`]);
          return undefined;
        }
        return await followAndReport({
          announce: `Sent to task ${taskId}; following it (Ctrl-C stops waiting, not the task).`,
          api,
          io,
          workspaceId,
          taskId,
          cursor: before.cursor,
          awaitingPickup: isTurnDone(before.task.status),
          ownMessageId: messageId,
          sentAt,
          timeoutMinutes: flags.timeout,
        });
      } finally {
        api.close();
      }
    }),
  );
}

/**
 * One send (the HTTP layer tries three times with the key). A 503 `unavailable` naming the saved message after the
 * last try: the message is kept and goes to the agent when the service can hand it over, so it is followed.
 */
async function sendOnce(
  api: ApiClient,
  workspaceId: string,
  taskId: string,
  text: string,
  say: (line: string) => void,
): Promise<string> {
  const key = newIdempotencyKey();
  try {
    return (await api.sendMessage(workspaceId, taskId, text, key)).messageId;
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal?.wireError !== "unavailable" || !refusal.messageId) throw error;
    say(`The reply is saved, but the service could not hand it to the agent yet; it will when it can.`);
    return refusal.messageId;
  }
}
