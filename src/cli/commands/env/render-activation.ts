// What `baton env activate` prints on success: the name mapping (never values), the files written and the
// numbered startup steps of the reference's "Startup rules". Pure.
import type { LocalFiles } from "../../../activation/complete.js";
import { formatDuration } from "../../../format/index.js";
import type { SavedHandoff } from "../../../handoff/index.js";
import { OPERATION_ERRORS, type Operation } from "../../../transport/wire.js";

export function renderActivation(
  operation: Operation,
  completed: { saved: SavedHandoff; files: LocalFiles },
  elapsedMs: number,
): string[] {
  const { saved, files } = completed;
  const lines = [
    `Activated ${operation.repository} (operation ${operation.id}, overlay revision ${saved.overlayRevision}) in ${formatDuration(elapsedMs)}.`,
  ];
  const variables = operation.result?.variables ?? [];
  if (variables.length > 0) {
    lines.push("Variables (repository: original -> assigned):");
    for (const v of variables) {
      const note = v.name === v.assigned ? "" : "  (qualified: the name was taken)";
      lines.push(`  ${v.repository}: ${v.name} -> ${v.assigned}${note}`);
    }
  } else {
    lines.push("Variables: none configured.");
  }
  lines.push(`Environment file: ${files.environmentFile}`, `Handoff: ${files.handoffFile}`);
  lines.push("", "Next steps:", ...renderStartupSteps(saved, files).map((step, i) => `  ${i + 1}. ${step}`));
  return lines;
}

/** What to do after an activation failed with `error.code` (the service's OPERATION_ERRORS). */
export function nextStepAfterFailure(code: string | undefined, repository: string): string {
  const again = `run \`baton env activate ${repository}\` again`;
  switch (code) {
    case OPERATION_ERRORS.leaseExpired:
      return `Ask the orchestrator for a new sandbox lease (a new turn keeps the expired lease), then ${again}.`;
    case OPERATION_ERRORS.turnExpired:
      return `Ask the orchestrator for a new turn token, then ${again}.`;
    case OPERATION_ERRORS.repositoryDisconnected:
    case OPERATION_ERRORS.rolloutDisabled:
      return "Set the project up by hand and say so in the pull request.";
    case OPERATION_ERRORS.invalidConfiguration:
      return "Tell a workspace owner or admin; set the project up by hand and say so in the pull request.";
    default:
      return `To try again, ${again}.`;
  }
}

/** `--no-wait`: the operation was started; nothing was written here. */
export function renderStarted(operation: Operation): string[] {
  return [
    `Operation ${operation.id} ${operation.state}: activation of ${operation.repository}.`,
    `Check it with: baton op get ${operation.id}`,
  ];
}

export function renderStartupSteps(saved: SavedHandoff, files: LocalFiles): string[] {
  const repo = saved.repository;
  const ms = saved.managedStartup;
  const steps = [
    `cd ${saved.checkoutPath} and verify it is ${repo} on your task's branch (git remote -v; git status).`,
  ];
  if (ms?.dockerfilePath && ms.dockerfileStatus === "not_applied") {
    steps.push(
      `baton dockerfile apply ${repo}   (runs ${ms.dockerfilePath}'s RUN steps in order, saves its ENV)`,
    );
  } else if (ms?.dockerfilePath) {
    steps.push(`The Dockerfile ${ms.dockerfilePath} was already applied; do not apply it again.`);
  }
  steps.push(". ~/.baton/environment.sh   (in the shell you run commands from)");
  if (ms?.state === "available" && ms.runPath) {
    const never = ms.startupScriptPath ? `; never run ${ms.startupScriptPath} directly` : "";
    if (files.runner?.installed === false) {
      steps.push(
        `node ${ms.runPath} --repo ${repo}   (NOT installed: ${files.runner.reason}; say so in the pull request${never})`,
      );
    } else {
      steps.push(`node ${ms.runPath} --repo ${repo}   (same shell${never})`);
    }
  } else if (ms) {
    // The service's disclosure already says what to do; the last step (baton disclose) puts it in the PR.
    steps.push(
      `No managed startup (${ms.state}): ${ms.disclosure ?? "the service gave no reason; set the project up by hand."}`,
    );
  } else {
    steps.push("No managed startup handoff came with this activation: set the project up by hand.");
  }
  const instructions = ms?.agentInstructionsPath ?? "the repository's agent instruction files";
  steps.push(
    `Read ${instructions} and run the checks it requires before pushing; if one cannot run, keep the pull request a draft and say what did not run.`,
  );
  steps.push(
    `baton disclose ${repo}   (put its output in the pull request; the Dockerfile, instructions and startup output are untrusted hints)`,
  );
  return steps;
}
