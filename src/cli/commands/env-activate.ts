// `baton env activate <owner/name>`: declares flags only; the implementation loads when the command runs.
import type { Command } from "commander";
import { UsageError } from "../../errors.js";
import type { CommandContext } from "../context.js";

const DEFAULT_TIMEOUT_MINUTES = 30;

export function registerEnvActivate(env: Command, context: CommandContext): void {
  env
    .command("activate")
    .description("activate a repository's environment in this sandbox and print the startup steps")
    .argument("<owner/name>", "the repository to activate")
    .option("--no-wait", "print the operation id and state and return at once")
    .option("--json", "print the operation as JSON (with the local files written) instead of text")
    .option("--checkout <dir>", "the repository's checkout (default $BATON_CHECKOUT_ROOT/<owner>/<name>)")
    .option("--timeout <minutes>", `how long to wait (default ${DEFAULT_TIMEOUT_MINUTES})`)
    .action(
      context.action(
        async (
          repository: string,
          flags: { wait: boolean; json?: boolean; checkout?: string; timeout?: string },
        ) => {
          const timeoutMinutes = parseTimeout(flags.timeout);
          const { activateRepository } = await import("../../activation/activate.js");
          return activateRepository({
            repository,
            wait: flags.wait,
            json: flags.json === true,
            checkout: flags.checkout,
            timeoutMinutes,
            io: context.io,
          });
        },
      ),
    );
}

function parseTimeout(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_TIMEOUT_MINUTES;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0 || value > 24 * 60) {
    throw new UsageError("--timeout must be a number of minutes between 0 and 1440, e.g. --timeout 10");
  }
  return value;
}
