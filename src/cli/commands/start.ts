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
import type { CommandContext } from "../context.js";
import { collect } from "../flags.js";
import { writeJson, writeLine, writeLines } from "../io.js";
import { addFollowOptions, checkJsonWithoutWait, followAndReport } from "./follow-task.js";

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
    .option("-w, --workspace <id>", "the workspace (default: the saved one)");
  addFollowOptions(command, {
    sent: "the task is started, without following it",
    json: "{task, messageId}",
  }).action(
    action(async (words: string[], flags: Flags) => {
      checkJsonWithoutWait(flags);
      const prompt = await withAttachments(io.cwd, words.join(" "), flags.file ?? []);
      const session = await openSession({ env: io.env, log });
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
