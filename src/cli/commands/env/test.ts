// `baton env test [<checkout>]`: a repository's agent environment in a throwaway sandbox, or with `--serve` in a
// box of a running `baton serve`; prints each step, the evidence summary and the disclosure. Exit 0 only when the
// startup succeeded.
import { basename, resolve } from "node:path";
import { type Command, InvalidArgumentError, Option } from "commander";
import { DEFAULT_READY_TIMEOUT_SECONDS, parseReadinessFlags } from "../../../envtest/readiness-flags.js";
import { localRepositoryName } from "../../../envtest/seed.js";
import { UsageError } from "../../../errors.js";
import type { ReadinessCheckResult } from "../../../evidence/record.js";
import type { DriverName } from "../../../server/adapters/sandboxes/driver.js";
import type { EnvTestResult } from "../../../server/env-test.js";
import type { CommandContext, CommandResult } from "../../context.js";
import { collect, positiveNumberUpTo } from "../../flags.js";
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
    .option(
      "--no-proxy",
      "start no proxy (default: a throwaway baton proxy, the box's one way out): the box reaches nothing but the throwaway service",
    )
    .option("--timeout <seconds>", "time limit for each step inside the box", parseSeconds, 600)
    .option("--ready-url <url>", "readiness: this URL must answer 2xx or 3xx; repeat for more", collect)
    .option(
      "--ready-tcp <host:port>",
      "readiness: this port must accept a connection; repeat for more",
      collect,
    )
    .option(
      "--ready-command <command>",
      "readiness: this bash -c command must exit 0; repeat for more",
      collect,
    )
    .option(
      "--ready-timeout <seconds>",
      "deadline for each readiness check, retried until then",
      positiveNumberUpTo(3600, "seconds", "30"),
      DEFAULT_READY_TIMEOUT_SECONDS,
    )
    .option(
      "--serve <admin-url>",
      "use a box of this running baton serve (its admin listener, adminUrl; BATON_ADMIN_TOKEN holds its admin token): its pool's ready box when it has one; the environment is the one that service holds for the repository (its seed and settings), not one made from the checkout, which must lie under its --checkout-root",
    )
    .option("--workspace <id>", "with --serve: the workspace of that service the repository belongs to")
    .option(
      "--json",
      "print {ok, repository, driver, image, egress, steps, batonrcProblems, evidence, disclosure, durationMs}",
    )
    .addHelpText(
      "after",
      "\nWith --serve, the box is deleted afterwards (also on failure or Ctrl-C), never returned to the pool; --driver,\n--image, --no-proxy and the --ready-* flags are that service's business and are refused. The service answers\nonly when all four steps in the box have ended, so their lines come after the fact.",
    )
    .action(
      context.action(
        async (
          checkout: string | undefined,
          flags: {
            repository?: string;
            driver: DriverName;
            image?: string;
            proxy: boolean;
            timeout: number;
            readyUrl?: string[];
            readyTcp?: string[];
            readyCommand?: string[];
            readyTimeout: number;
            serve?: string;
            workspace?: string;
            json?: boolean;
          },
        ) => {
          const io = context.io;
          if (flags.serve !== undefined || flags.workspace !== undefined)
            return await testWithService(command, io, checkout ?? io.cwd, flags);
          // Checked before anything starts: a bad flag costs no box.
          const readiness = parseReadinessFlags({
            readyUrl: flags.readyUrl ?? [],
            readyTcp: flags.readyTcp ?? [],
            readyCommand: flags.readyCommand ?? [],
            readyTimeout: flags.readyTimeout,
            stepTimeout: flags.timeout,
          });
          const { runEnvTest } = await import("../../../server/env-test.js");
          const result = await runEnvTest({
            checkout: checkout ?? io.cwd,
            repository: flags.repository,
            driver: flags.driver,
            image: flags.image,
            proxy: flags.proxy,
            timeoutSeconds: flags.timeout,
            readiness,
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

/** Flags a named service decides for itself (its driver, image, proxy, and the repository's readiness checks). */
const SERVICE_OWNED = ["driver", "image", "proxy", "readyUrl", "readyTcp", "readyCommand", "readyTimeout"];

async function testWithService(
  command: Command,
  io: CliIo,
  checkout: string,
  flags: { repository?: string; serve?: string; workspace?: string; timeout: number; json?: boolean },
): Promise<CommandResult> {
  if (!flags.serve || !flags.workspace)
    throw new UsageError(
      "--serve and --workspace go together: the admin URL of a running baton serve and the workspace the repository belongs to there",
    );
  const given = SERVICE_OWNED.filter((name) => command.getOptionValueSource(name) === "cli");
  if (given.length > 0) {
    const option = command.options.find((o) => o.attributeName() === given[0]);
    throw new UsageError(
      `${option?.long ?? given[0]} cannot be used with --serve: the service's own driver, image, proxy and the repository's readiness checks apply; drop it, or test without --serve`,
    );
  }
  const { runRemoteEnvTest } = await import("../../../server/env-test-remote.js");
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort(new Error("interrupted"));
  process.once("SIGINT", onInterrupt);
  process.once("SIGTERM", onInterrupt);
  let result: EnvTestResult;
  try {
    result = await runRemoteEnvTest({
      checkout,
      repository: flags.repository ?? localRepositoryName(basename(resolve(checkout))),
      serve: flags.serve,
      workspace: flags.workspace,
      timeoutSeconds: flags.timeout,
      env: io.env,
      signal: interrupt.signal,
      onStep: (name) =>
        writeLine(
          io.stderr,
          name === "rehearse"
            ? "baton env test: activate, dockerfile, startup, disclose in the box (the service answers when all have ended)…"
            : `baton env test: ${name}…`,
        ),
      onRehearsed: (step) =>
        writeLine(
          io.stderr,
          `baton env test: ${step.name} ${step.ok ? "ok" : "FAILED"} (${step.durationMs} ms)`,
        ),
    });
  } finally {
    process.off("SIGINT", onInterrupt);
    process.off("SIGTERM", onInterrupt);
  }
  if (flags.json) writeJson(io.stdout, result);
  else printResult(io, result, flags.serve);
  return result.ok ? undefined : { failed: "step_failed" };
}

function describeEgress(egress: EnvTestResult["egress"], serve: string | undefined): string {
  if (egress.proxy === "service")
    return `only through the service's egress proxy, which the box reaches at ${egress.address}`;
  if (serve !== undefined)
    return `no egress proxy: the service at ${serve} has none (baton serve --proxy-url); the box reaches only that service`;
  if (egress.proxy === "none") return "none (--no-proxy): the box reaches only the throwaway service";
  return `only through a throwaway baton proxy at ${egress.address} (HTTP_PROXY and HTTPS_PROXY are set in the box)`;
}

function printResult(io: CliIo, result: EnvTestResult, serve?: string): void {
  writeLine(
    io.stdout,
    `baton env test: ${result.repository} in a ${result.driver} sandbox${result.image ? ` (${result.image})` : ""}${serve ? ` of the service at ${serve}` : ""}`,
  );
  // Only once a box exists: a run stopped at lint started no proxy.
  if (result.steps.some((step) => step.name === "provision"))
    writeLine(io.stdout, `  egress: ${describeEgress(result.egress, serve)}`);
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
    readiness?: { status?: string; note?: string; checks?: ReadinessCheckResult[] };
    evidencePath?: string;
  } | null;
  if (evidence) {
    writeLine(
      io.stdout,
      `evidence: outcome ${evidence.outcome}, exit ${evidence.exitCode ?? "none"}, ${evidence.durationMs} ms, readiness ${evidence.readiness?.status ?? "none"}`,
    );
    // The evidence's targets and answers are sanitised by the runner.
    for (const check of evidence.readiness?.checks ?? [])
      writeLine(
        io.stdout,
        `  readiness ${check.ok ? "ok    " : "FAILED"} ${check.kind} ${check.target}: ${check.detail} after ${check.durationMs} ms (deadline ${check.deadlineSeconds} s)`,
      );
  }
  if (result.disclosure) {
    writeLine(io.stdout, "disclosure:");
    writeLine(io.stdout, result.disclosure.trimEnd());
  }
  const seconds = (result.durationMs / 1000).toFixed(1);
  if (result.ok) writeLine(io.stdout, `baton env test: passed in ${seconds} s`);
  else {
    const failed = result.steps.find((s) => !s.ok)?.name ?? "a step";
    if (evidence?.outcome === "not_ready") {
      writeLine(
        io.stdout,
        `baton env test: failed at startup after ${seconds} s: not ready (${evidence.readiness?.note ?? "a readiness check failed"}); make the startup script start what the checks wait for, or fix the checks, then run baton env test again`,
      );
      return;
    }
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
