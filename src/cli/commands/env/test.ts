// `baton env test [<checkout>]`: a repository's agent environment in a throwaway sandbox; prints each step, the
// evidence summary and the disclosure. Exit 0 only when the startup succeeded.
import { type Command, InvalidArgumentError, Option } from "commander";
import type { DriverName } from "../../../server/sandboxes/driver.js";
import type { EnvTestResult } from "../../../server/sandboxes/env-test.js";
import type { CommandContext } from "../../context.js";
import { type CliIo, writeJson, writeLine } from "../../io.js";

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 24 * 3600)
    throw new InvalidArgumentError("must be a number of seconds, 1 to 86400");
  return seconds;
}

export function declare(command: Command, context: CommandContext): void {
  command
    .argument("[checkout]", "the repository's checkout (default: the current folder)")
    .option("--repository <owner/name>", "the repository's name (default: local/<folder name>)")
    .addOption(
      new Option("--driver <driver>", "sandbox driver").choices(["docker", "namespace"]).default("docker"),
    )
    .option("--image <tag>", "sandbox image (default: .batonrc.json's snapshot_name, else Baton's image)")
    .option("--proxy <host:port>", "a running baton proxy for the box's egress (default: no way out)")
    .option("--timeout <seconds>", "time limit for each step inside the box", parseSeconds, 600)
    .option("--json", "print {ok, repository, driver, image, steps, batonrcProblems, evidence, disclosure}")
    .action(
      context.action(
        async (
          checkout: string | undefined,
          flags: {
            repository?: string;
            driver: DriverName;
            image?: string;
            proxy?: string;
            timeout: number;
            json?: boolean;
          },
        ) => {
          const { runEnvTest } = await import("../../../server/sandboxes/env-test.js");
          const io = context.io;
          const result = await runEnvTest({
            checkout: checkout ?? io.cwd,
            repository: flags.repository,
            driver: flags.driver,
            image: flags.image,
            proxy: flags.proxy,
            timeoutSeconds: flags.timeout,
            env: io.env,
            onStep: (name) => writeLine(io.stderr, `baton env test: ${name}…`),
          });
          if (flags.json) writeJson(io.stdout, result);
          else printResult(io, result);
          // Printed either way; a failed step is exit 1 (the startup, or what stopped it, failed).
          return result.ok ? undefined : { failed: "step_failed" as const };
        },
      ),
    );
}

function printResult(io: CliIo, result: EnvTestResult): void {
  writeLine(
    io.stdout,
    `baton env test: ${result.repository} in a ${result.driver} sandbox${result.image ? ` (${result.image})` : ""}`,
  );
  for (const step of result.steps)
    writeLine(
      io.stdout,
      `  ${step.name.padEnd(10)} ${step.ok ? "ok    " : "FAILED"} ${String(step.durationMs).padStart(6)} ms${step.detail ? `  ${step.detail}` : ""}`,
    );
  for (const problem of result.batonrcProblems)
    writeLine(io.stdout, `  .batonrc.json: ${problem.path}: ${problem.message}`);
  const evidence = result.evidence as {
    outcome?: string;
    exitCode?: number | null;
    durationMs?: number;
    readiness?: { status?: string };
    evidencePath?: string;
  } | null;
  if (evidence)
    writeLine(
      io.stdout,
      `evidence: outcome ${evidence.outcome}, exit ${evidence.exitCode ?? "none"}, ${evidence.durationMs} ms, readiness ${evidence.readiness?.status ?? "none"}`,
    );
  if (result.disclosure) {
    writeLine(io.stdout, "disclosure:");
    writeLine(io.stdout, result.disclosure.trimEnd());
  }
  const seconds = (result.durationMs / 1000).toFixed(1);
  if (result.ok) writeLine(io.stdout, `baton env test: passed in ${seconds} s`);
  else {
    const failed = result.steps.find((s) => !s.ok)?.name ?? "a step";
    const next =
      failed === "lint"
        ? "fix .batonrc.json"
        : failed === "startup"
          ? "read the evidence above and fix the startup script"
          : `fix the ${failed} step`;
    writeLine(
      io.stdout,
      `baton env test: failed at ${failed} after ${seconds} s; ${next}, then run baton env test again`,
    );
  }
}
