// `baton start "<prompt>"` (and `baton "<prompt>"`, routed here by rule 1): start a task in the chosen repository
// (rule 2) with any attached files (rule 3) under one idempotency key (rule 4), then follow it (rules 5 and 6),
// or with --no-wait return at once (--json: the API's `{task, messageId}`).
import "./zod-jitless.js";
import type { Command } from "commander";
import { findCandidateRepositories } from "../../client/git-remotes.js";
import { newIdempotencyKey } from "../../client/idempotency.js";
import { withAttachments } from "../../client/read-attachments.js";
import { renderStartNotice } from "../../client/render-follow.js";
import { chooseWorkspace, openSession } from "../../client/session.js";
import { startInRepository } from "../../client/start-in-repository.js";
import { UsageError } from "../../errors.js";
import type { CommandContext } from "../context.js";
import { collect, positiveNumberUpTo } from "../flags.js";
import { writeJson, writeLine, writeLines } from "../io.js";
import { followAndReport } from "./follow-task.js";

export const DEFAULT_TIMEOUT_MINUTES = 30;
/** A day: following longer than that is what `baton show` is for. */
export const MAX_TIMEOUT_MINUTES = 24 * 60;

interface Flags {
  repo?: string;
  file?: string[];
  title?: string;
  workspace?: string;
  timeout: number;
  wait: boolean;
  json?: boolean;
}

export function declare(command: Command, { io, log, action }: CommandContext): void {
  command
    .argument("<prompt...>", 'what the agent should do; a prompt starting with "-" goes after --')
    .option("-r, --repo <owner/name>", "the repository (must be connected; never replaced by another)")
    .option("-f, --file <path>", "attach a text file (repeatable; 80 KB together)", collect)
    .option(
      "-t, --title <title>",
      "the title (default: the prompt's first line); --title=<title> if it starts with -",
    )
    .option("-w, --workspace <id>", "the workspace (default: the saved one)")
    .option(
      "--timeout <minutes>",
      `how long to follow (default ${DEFAULT_TIMEOUT_MINUTES})`,
      positiveNumberUpTo(MAX_TIMEOUT_MINUTES, "minutes", "--timeout 10"),
      DEFAULT_TIMEOUT_MINUTES,
    )
    .option("--no-wait", "return once the task is started, without following it")
    .option("--json", "with --no-wait: print the API's {task, messageId} as JSON")
    .action(
      action(async (words: string[], flags: Flags) => {
        if (flags.json && flags.wait)
          throw new UsageError("--json goes with --no-wait (following prints text)");
        const prompt = await withAttachments(io.cwd, words.join(" "), flags.file ?? []);
        const session = openSession({ env: io.env, log });
        try {
          const workspaceId = chooseWorkspace(flags.workspace, session.config);
          const candidates =
            flags.repo === undefined ? await findCandidateRepositories(io.cwd, io.env) : undefined;
          const sentAt = Date.now();
          const started = await startInRepository(session.api, {
            workspaceId,
            prompt,
            title: flags.title,
            repoFlag: flags.repo,
            candidates,
            idempotencyKey: newIdempotencyKey(),
            notify: (notice) => writeLine(io.stderr, renderStartNotice(notice)),
          });
          const { task } = started;
          if (!flags.wait) {
            if (flags.json) writeJson(io.stdout, started);
            else writeLines(io.stdout, [`Started task ${task.id}.`, `Follow it with: baton show ${task.id}`]);
            return undefined;
          }
          return await followAndReport({
            announce: `Started task ${task.id}; following it (Ctrl-C stops waiting, not the task).`,
            api: session.api,
            io,
            workspaceId,
            taskId: task.id,
            cursor: null,
            awaitingPickup: false,
            ownMessageId: started.messageId,
            sentAt,
            timeoutMinutes: flags.timeout,
          });
        } finally {
          session.api.close();
        }
      }),
    );
}
