// `baton env activate <owner/name>`: start the activation, wait for it (long-poll, progress on stderr), then
// write the environment file and the handoff, install the runner and print the next steps.
import type { z } from "zod";
import { EXIT, type ExitCode } from "../cli/exit-codes.js";
import { type CliIo, writeJson, writeLine } from "../cli/io.js";
import { resolveCheckout } from "../config/checkout.js";
import { resolveSandboxPaths } from "../config/sandbox.js";
import { RepositorySlugSchema } from "../envfile/overlay.js";
import { EnvironmentOperationError, UsageError } from "../errors.js";
import { createOpsClient, requireOpsSettings } from "../transport/index.js";
import { OperationSchema } from "../transport/wire.js";
import { completeActivation, LocalFilesSchema } from "./complete.js";
import { createProgressReporter } from "./progress.js";
import { renderActivation } from "./render.js";
import { waitForOperation } from "./wait.js";

export interface ActivateOptions {
  repository: string;
  wait: boolean;
  json: boolean;
  /** `--checkout <dir>`; default `$BATON_CHECKOUT_ROOT/<owner>/<name>`. */
  checkout: string | undefined;
  timeoutMinutes: number;
  io: CliIo;
}

/** The `--json` document: the operation, plus what was written locally (null unless it succeeded). */
export const ActivationJsonSchema = OperationSchema.extend({ local: LocalFilesSchema.nullable() }).strict();
export type ActivationJson = z.infer<typeof ActivationJsonSchema>;

export async function activateRepository(options: ActivateOptions): Promise<ExitCode> {
  const { io } = options;
  const started = Date.now();
  if (!RepositorySlugSchema.safeParse(options.repository).success) {
    throw new UsageError(`repository must be owner/name, e.g. acme/api`);
  }
  const repository = options.repository;
  const settings = requireOpsSettings(io.env);
  const paths = resolveSandboxPaths(io.env);
  const checkoutPath = resolveCheckout({
    flag: options.checkout,
    cwd: io.cwd,
    paths,
    repository,
    env: io.env,
  });
  const client = createOpsClient(settings);
  try {
    const first = await client.startActivation(repository);
    if (!options.wait) {
      if (options.json) writeJson(io.stdout, first);
      else {
        writeLine(io.stdout, `Operation ${first.id} ${first.state}: activation of ${repository}.`);
        writeLine(io.stdout, `Check it with: baton op get ${first.id}`);
      }
      return EXIT.ok;
    }
    const progress = createProgressReporter(first.id, { write: (line) => writeLine(io.stderr, line) });
    progress.update(first.state, Date.now() - started);
    // Ctrl-C stops waiting (exit 3, as the reference's client does); the operation keeps going.
    const interrupt = new AbortController();
    const onInterrupt = () => interrupt.abort(new Error("interrupted"));
    process.once("SIGINT", onInterrupt);
    const done = await waitForOperation(client, first, {
      deadline: started + options.timeoutMinutes * 60_000,
      onUpdate: (op) => progress.update(op.state, Date.now() - started),
      signal: interrupt.signal,
    }).finally(() => process.off("SIGINT", onInterrupt));
    if (done.state === "failed") {
      const reason = done.error ? `${done.error.reason} (${done.error.code})` : "the service gave no reason";
      const message = `the activation of ${repository} failed: ${reason}. Operation ${done.id}.`;
      if (!options.json) throw new EnvironmentOperationError("operation_failed", message);
      writeLine(io.stderr, `baton: ${message}`);
      writeJson(io.stdout, { ...done, local: null } satisfies ActivationJson);
      return EXIT.environmentFailed;
    }
    const completed = await completeActivation({
      client,
      operation: done,
      paths,
      checkoutPath,
      now: () => new Date(),
    });
    if (options.json) writeJson(io.stdout, { ...done, local: completed.files } satisfies ActivationJson);
    else
      for (const line of renderActivation(done, completed, Date.now() - started)) writeLine(io.stdout, line);
    return EXIT.ok;
  } finally {
    await client.close();
  }
}
