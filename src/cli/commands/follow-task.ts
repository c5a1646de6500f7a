// The part `baton start` and `baton reply` share after sending: follow the task (rules 5 and 6), print each entry
// and notice, close with the next command to run, and turn the outcome into the reference's exit code (0 turn
// finished, 2 failed/cancelled/paused, 3 still working or not picked up). Ctrl-C stops waiting, never the task.
import type { Command } from "commander";
import type { ApiClient } from "../../client/api-client.js";
import { followTask, pickupLimitFrom, pollIntervalFrom } from "../../client/follow.js";
import { followDepsFor } from "../../client/follow-api.js";
import { isFailedOutcome } from "../../client/follow-step.js";
import { renderFollowEvent, renderOutcome } from "../../client/render-follow.js";
import { UsageError } from "../../errors.js";
import type { CommandResult } from "../context.js";
import { positiveNumberUpTo } from "../flags.js";
import type { CliIo } from "../io.js";
import { writeLine, writeLines } from "../io.js";

export const DEFAULT_TIMEOUT_MINUTES = 30;
/** A day: following longer than that is what `baton show` is for. */
export const MAX_TIMEOUT_MINUTES = 24 * 60;

/** The flags start and reply share last, in this order: --timeout, --no-wait and --json (with --no-wait only). */
export function addFollowOptions(command: Command, what: { sent: string; json: string }): Command {
  return command
    .option(
      "--timeout <minutes>",
      `how long to follow (default ${DEFAULT_TIMEOUT_MINUTES})`,
      positiveNumberUpTo(MAX_TIMEOUT_MINUTES, "minutes", "--timeout 10"),
      DEFAULT_TIMEOUT_MINUTES,
    )
    .option("--no-wait", `return once ${what.sent}`)
    .option("--json", `with --no-wait: print the API's ${what.json} as JSON`);
}

/** Following prints text, so --json goes only with --no-wait. */
export function checkJsonWithoutWait(flags: { json?: boolean; wait: boolean }): void {
  if (flags.json && flags.wait) throw new UsageError("--json goes with --no-wait (following prints text)");
}

export interface FollowRun {
  api: ApiClient;
  io: CliIo;
  workspaceId: string;
  taskId: string;
  cursor: string | null;
  awaitingPickup: boolean;
  ownMessageId: string;
  sentAt: number;
  timeoutMinutes: number;
  /** Printed once Ctrl-C is handled, so a Ctrl-C right after it stops waiting, never the process mid-start. */
  announce: string;
}

export async function followAndReport(run: FollowRun): Promise<CommandResult> {
  const { io, api } = run;
  const controller = new AbortController();
  const stopWaiting = () => controller.abort();
  process.on("SIGINT", stopWaiting);
  writeLine(io.stderr, run.announce);
  let lastKind: string | undefined;
  try {
    const deps = followDepsFor(api, run.workspaceId, run.taskId, (event) => {
      if (event.type === "entry" && event.entry.role !== "user") lastKind = event.entry.kind;
      const { stream, lines } = renderFollowEvent(event);
      writeLines(stream === "stdout" ? io.stdout : io.stderr, lines);
    });
    const outcome = await followTask(deps, {
      cursor: run.cursor,
      awaitingPickup: run.awaitingPickup,
      ownMessageIds: new Set([run.ownMessageId]),
      sentAt: run.sentAt,
      timeoutMs: run.timeoutMinutes * 60_000,
      pollMs: pollIntervalFrom(io.env),
      pickupLimitMs: pickupLimitFrom(io.env),
      signal: controller.signal,
    });
    const pausedOn =
      outcome.kind === "turn_done" && outcome.status === "paused"
        ? (await api.getTask(run.workspaceId, run.taskId)).pausedOn
        : undefined;
    writeLines(
      io.stderr,
      renderOutcome(outcome, {
        taskId: run.taskId,
        timeoutMinutes: run.timeoutMinutes,
        pausedOn,
        ...(lastKind ? { lastKind } : {}),
      }),
    );
    if (outcome.kind !== "turn_done") return { failed: "still_working" };
    return isFailedOutcome(outcome.status) ? { failed: "task_failed" } : undefined;
  } finally {
    process.off("SIGINT", stopWaiting);
  }
}
