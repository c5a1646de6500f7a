// The service's own entries in a conversation (role `platform`): refusals, errors, stops and files produced.
// Each says what happened and what to do next; none quotes a secret (agent output is sanitised before it
// reaches here).
import type { Plan, SlotCounts } from "./decide.js";

export const NOTICES = {
  queueFull: (plan: Plan, slots: SlotCounts) =>
    `Not started: the workspace queue is full (plan ${plan.name}: ${slots.running} of ${plan.concurrency} running, ${slots.queued} of ${plan.queueSize} queued). Send the message again once a turn finishes.`,
  stopped: (by: string, notRun: number) =>
    `Stopped by ${by}.${notRun > 0 ? ` ${notRun} message${notRun === 1 ? "" : "s"} sent during the turn ${notRun === 1 ? "was" : "were"} not run.` : ""} Send a follow-up to continue.`,
  billingPaused: () =>
    "Paused: billing is inactive for this workspace. An owner can reactivate billing; then send a follow-up to continue.",
  accessPaused: (reason: string) =>
    `Paused: the agent lacks access it needs (${reason}). Once access is granted, send a follow-up to continue.`,
  agentFailed: (reason: string) =>
    `The turn failed: ${reason.replace(/[.\s]+$/, "")}. Send a follow-up to try again.`,
  interrupted: (attempts: number) =>
    `The turn failed: the service restarted during it ${attempts} times. Send a follow-up to try again.`,
  filesProduced: (paths: readonly string[]) => `Files the agent produced: ${paths.join(", ")}`,
  pullRequestOpened: (url: string) => `Pull request opened: ${url}`,
} as const;
