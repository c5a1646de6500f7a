// `baton env rehearse <owner/name>`: the agent's four start-up steps in one process, for `baton env test`, which
// starts it in the box and reads its lines (src/envtest/rehearsal-wire.ts). Not for people: `baton env test` is.
import "../zod-jitless.js";
import type { Command } from "commander";
import { rehearseStartup } from "../../../envtest/rehearse.js";
import type { CommandContext } from "../../context.js";
import { positiveNumberUpTo } from "../../flags.js";
import { writeLine } from "../../io.js";

const MAX_TIMEOUT_SECONDS = 24 * 60 * 60;

export function declare(command: Command, { io, log, action }: CommandContext): void {
  command
    .argument("<owner/name>", "the repository to activate")
    .option(
      "--timeout <seconds>",
      "time limit for each step (default 600)",
      positiveNumberUpTo(MAX_TIMEOUT_SECONDS, "seconds", "--timeout 600"),
      600,
    )
    .action(
      action(async (repository: string, flags: { timeout: number }) => {
        await rehearseStartup({
          repository,
          timeoutSeconds: flags.timeout,
          env: io.env,
          cwd: io.cwd,
          log,
          report: (line) => writeLine(io.stdout, JSON.stringify(line)),
          readyToDisclose: () => oneLineOrEnd(io.stdin),
        });
        return undefined;
      }),
    );
}

/** Resolves at the first line the host writes, or when it closes our standard input. */
function oneLineOrEnd(stdin: NodeJS.ReadableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stdin.off("data", onData);
      stdin.off("end", done);
      stdin.off("close", done);
      stdin.pause();
      resolve();
    };
    const onData = (chunk: Buffer | string) => {
      if (String(chunk).includes("\n")) done();
    };
    stdin.on("data", onData);
    stdin.once("end", done);
    stdin.once("close", done);
    stdin.resume();
  });
}
