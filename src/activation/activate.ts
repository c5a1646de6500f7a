// `baton env activate <owner/name>`: start the activation, wait for it (long-poll), then write the environment
// file and the handoff and install the runner. Returns what happened; src/cli prints it.
import type * as z from "zod";
import { resolveCheckout } from "../config/checkout.js";
import { resolveSandboxPaths } from "../config/sandbox.js";
import { RepositorySlugSchema } from "../envfile/overlay.js";
import { UsageError } from "../errors.js";
import type { Log } from "../log-level.js";
import { createOpsClient, requireOpsSettings } from "../transport/index.js";
import { type Operation, OperationSchema } from "../transport/wire.js";
import { type Completed, completeActivation, LocalFilesSchema } from "./complete.js";
import { waitForOperation } from "./wait.js";

export interface ActivateInput {
  repository: string;
  /** False: start the operation and return it at once (`--no-wait`). */
  wait: boolean;
  /** `--checkout <dir>` (relative to `cwd`); default `$BATON_CHECKOUT_ROOT/<owner>/<name>`. */
  checkout: string | undefined;
  /** Wall-clock deadline for the wait, in ms since the epoch. */
  deadline: number;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Stops waiting (Ctrl-C): the wait ends with StillWorkingError and the operation keeps going. */
  signal?: AbortSignal;
  /** Called with every state the service reports, the first answer included. */
  onUpdate?: (operation: Operation) => void;
  log?: Log;
  now?: () => Date;
}

export type ActivationOutcome =
  | { kind: "started"; operation: Operation }
  | { kind: "failed"; operation: Operation }
  | { kind: "activated"; operation: Operation; completed: Completed };

/** The `--json` document: the operation, plus what was written locally (null unless it succeeded). */
export const ActivationJsonSchema = OperationSchema.extend({ local: LocalFilesSchema.nullable() }).strict();
export type ActivationJson = z.infer<typeof ActivationJsonSchema>;

export async function activateRepository(input: ActivateInput): Promise<ActivationOutcome> {
  if (!RepositorySlugSchema.safeParse(input.repository).success) {
    throw new UsageError(`repository must be owner/name, e.g. acme/api`);
  }
  const repository = input.repository;
  const settings = requireOpsSettings(input.env);
  const paths = resolveSandboxPaths(input.env);
  const checkoutPath = resolveCheckout({
    flag: input.checkout,
    cwd: input.cwd,
    paths,
    repository,
    env: input.env,
  });
  const client = createOpsClient(settings, input.log ? { log: input.log } : {});
  try {
    const { operation: first, overlay } = await client.startActivation(repository);
    input.onUpdate?.(first);
    if (!input.wait) return { kind: "started", operation: first };
    // The service answers with the finished operation when it can: then there is nothing to wait for.
    const done = await waitForOperation(client, first, {
      deadline: input.deadline,
      onUpdate: (op) => input.onUpdate?.(op),
      ...(input.signal ? { signal: input.signal } : {}),
    });
    if (done.state === "failed") return { kind: "failed", operation: done };
    const completed = await completeActivation({
      client,
      operation: done,
      // Carried by the start's answer only when that answer was already the finished operation.
      overlay: done === first ? overlay : undefined,
      paths,
      checkoutPath,
      now: input.now ?? (() => new Date()),
      env: input.env,
    });
    return { kind: "activated", operation: done, completed };
  } finally {
    await client.close();
  }
}
