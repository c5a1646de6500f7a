// `baton env activate <owner/name>`: flags, progress on stderr while waiting, Ctrl-C, and what it prints.
import "../zod-jitless.js";
import type { Command } from "commander";
import { type ActivationJson, activateRepository } from "../../../activation/activate.js";
import { EnvironmentOperationError } from "../../../errors.js";
import type { CommandContext } from "../../context.js";
import { positiveNumberUpTo } from "../../flags.js";
import { writeJson, writeLine, writeLines } from "../../io.js";
import { createProgressReporter, type ProgressReporter } from "./progress.js";
import { nextStepAfterFailure, renderActivation, renderStarted } from "./render-activation.js";

const DEFAULT_TIMEOUT_MINUTES = 30;
const MAX_TIMEOUT_MINUTES = 24 * 60;

interface Flags {
  wait: boolean;
  json?: boolean;
  checkout?: string;
  timeout: number;
}

export function declare(command: Command, { io, log, action }: CommandContext): void {
  command
    .argument("<owner/name>", "the repository to activate")
    .option("--no-wait", "print the operation id and state and return at once")
    .option("--json", "print the operation as JSON (with the local files written) instead of text")
    .option("--checkout <dir>", "the repository's checkout (default $BATON_CHECKOUT_ROOT/<owner>/<name>)")
    .option(
      "--timeout <minutes>",
      `how long to wait, more than 0 and at most ${MAX_TIMEOUT_MINUTES} (default ${DEFAULT_TIMEOUT_MINUTES})`,
      positiveNumberUpTo(MAX_TIMEOUT_MINUTES, "minutes", "--timeout 10"),
      DEFAULT_TIMEOUT_MINUTES,
    )
    .action(
      action(async (repository: string, flags: Flags) => {
        const started = Date.now();
        const json = flags.json === true;
        let progress: ProgressReporter | undefined;
        // Ctrl-C stops waiting (exit 3, as the reference's client does); the operation keeps going.
        const interrupt = new AbortController();
        const onInterrupt = () => interrupt.abort(new Error("interrupted"));
        process.once("SIGINT", onInterrupt);
        let outcome: Awaited<ReturnType<typeof activateRepository>>;
        try {
          outcome = await activateRepository({
            repository,
            wait: flags.wait,
            checkout: flags.checkout,
            deadline: started + flags.timeout * 60_000,
            env: io.env,
            cwd: io.cwd,
            signal: interrupt.signal,
            log,
            onUpdate: (operation) => {
              progress ??= createProgressReporter(operation.id, {
                write: (line) => writeLine(io.stderr, line),
              });
              progress.update(operation.state, Date.now() - started);
            },
          });
        } finally {
          process.off("SIGINT", onInterrupt);
        }
        const { operation } = outcome;
        if (outcome.kind === "started") {
          if (json) writeJson(io.stdout, operation);
          else writeLines(io.stdout, renderStarted(operation));
          return undefined;
        }
        if (outcome.kind === "failed") {
          const reason = operation.error
            ? `${operation.error.reason} (${operation.error.code})`
            : "the service gave no reason";
          const message = `the activation of ${repository} failed: ${reason}. Operation ${operation.id}. ${nextStepAfterFailure(operation.error?.code, repository)}`;
          if (!json) throw new EnvironmentOperationError("operation_failed", message);
          writeLine(io.stderr, `baton: ${message}`);
          writeJson(io.stdout, { ...operation, local: null } satisfies ActivationJson);
          return { failed: "operation_failed" };
        }
        if (json)
          writeJson(io.stdout, { ...operation, local: outcome.completed.files } satisfies ActivationJson);
        else writeLines(io.stdout, renderActivation(operation, outcome.completed, Date.now() - started));
        return undefined;
      }),
    );
}
