// Reads a `managedStartup` handoff in the current shape or the older ones the reference names, and returns the
// current shape. Older workers report `dockerfileStatus: applied`; older results omit the handoff altogether,
// or `dockerfilePath` / `dockerfileStatus`. Pure: no I/O.
import * as z from "zod";
import { parseOrThrow } from "../config/zod-error.js";
import { RepositorySlugSchema } from "../envfile/overlay.js";
import { InputError } from "../errors.js";
import {
  DOCKERFILE_STATUSES,
  HANDOFF_STATES,
  type ManagedStartup,
  ReadinessSchema,
} from "../transport/wire.js";

const PathSchema = z
  .string()
  .min(1)
  .refine((value) => !value.includes("\0"), "contains a NUL byte");

/** Tolerant of every shape the reference lets older workers send; unknown keys are dropped. */
const AnyManagedStartupSchema = z.object({
  state: z.enum(HANDOFF_STATES).default("available"),
  owner: z.literal("agent").default("agent"),
  versionId: z.string().min(1),
  repository: RepositorySlugSchema.optional(),
  dockerfilePath: PathSchema.nullable().optional(),
  dockerfileStatus: z.enum(DOCKERFILE_STATUSES).optional(),
  agentInstructionsPath: PathSchema.nullable().optional(),
  startupScriptPath: PathSchema.nullable().optional(),
  runPath: PathSchema.nullable().optional(),
  evidencePath: PathSchema.nullable().optional(),
  readiness: ReadinessSchema.default({ checks: [] }),
  startupTimeoutSeconds: z.number().int().positive().optional(),
  disclosure: z.string().nullable().optional(),
});

/**
 * Returns the handoff in the current shape, or null when the result carries none (an older worker).
 * `repository` is the one the operation activated; a handoff naming another is refused.
 */
export function parseManagedStartup(raw: unknown, repository: string): ManagedStartup | null {
  if (raw === undefined || raw === null) return null;
  const any = parseOrThrow(AnyManagedStartupSchema, raw, "the activation's managedStartup handoff");
  if (any.repository !== undefined && any.repository !== repository) {
    throw new InputError(
      `the activation's managedStartup handoff names ${any.repository}, not ${repository}; refusing it`,
      { path: "managedStartup.repository" },
    );
  }
  const available = any.state === "available";
  // `unavailable` and `delivery_failed` carry a disclosure instead of runnable paths: drop any path an older
  // worker left in, so nothing downstream can run it.
  const path = (value: string | null | undefined) => (available ? (value ?? null) : null);
  return {
    state: any.state,
    owner: any.owner,
    versionId: any.versionId,
    repository,
    dockerfilePath: path(any.dockerfilePath),
    // An older result without a status predates Dockerfile application by the worker: nothing was applied.
    dockerfileStatus: any.dockerfileStatus ?? "not_applied",
    agentInstructionsPath: path(any.agentInstructionsPath),
    startupScriptPath: path(any.startupScriptPath),
    runPath: path(any.runPath),
    evidencePath: path(any.evidencePath),
    readiness: any.readiness,
    ...(any.startupTimeoutSeconds === undefined ? {} : { startupTimeoutSeconds: any.startupTimeoutSeconds }),
    disclosure: any.disclosure ?? (available ? null : `the startup handoff is ${any.state}`),
  };
}
