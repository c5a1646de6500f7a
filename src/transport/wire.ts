// The operations transport's wire contract (DESIGN.md "Our operations transport"): header names, paths,
// states, error codes and body schemas. Client (src/transport) and server (src/server) both import this file;
// no other file spells these strings.
import { z } from "zod";
import { RepositorySlugSchema } from "../envfile/overlay.js";

export const HEADERS = {
  authorization: "authorization",
  sandboxLease: "baton-sandbox-lease",
  idempotencyKey: "idempotency-key",
  adminToken: "baton-admin-token",
  retryAfter: "retry-after",
  requestId: "baton-request-id",
} as const;

export const OPS_BASE_PATH = "/ops/v1";

export const PATHS = {
  operations: `${OPS_BASE_PATH}/operations`,
  operation: (id: string) => `${OPS_BASE_PATH}/operations/${encodeURIComponent(id)}`,
  operationRedeliver: (id: string) => `${OPS_BASE_PATH}/operations/${encodeURIComponent(id)}/redeliver`,
  operationOverlay: (id: string) => `${OPS_BASE_PATH}/operations/${encodeURIComponent(id)}/overlay`,
  capabilityRequests: `${OPS_BASE_PATH}/capability-requests`,
  capabilityEvidence: (id: string) =>
    `${OPS_BASE_PATH}/capability-requests/${encodeURIComponent(id)}/evidence`,
} as const;

/** Query parameters. `waitMs` on `GET PATHS.operation(id)` long-polls until the state changes or the time passes. */
export const QUERY = { waitMs: "waitMs" } as const;
/** The longest long-poll the server honours; clients ask for at most this. */
export const MAX_WAIT_MS = 25_000;

/** Error codes in `{error, reason}` bodies. */
export const WIRE_ERRORS = {
  invalidToken: "invalid_token", // 401
  notFound: "not_found", // 404, also for workspaces the caller is not in (never 403)
  rolloutDisabled: "rollout_disabled", // 403
  invalidRequest: "invalid_request", // 400
  invalidIdempotencyKey: "invalid_idempotency_key", // 400
  idempotencyConflict: "idempotency_conflict", // 409
  forbidden: "forbidden", // 403 for a member without the owner/admin role
  rateLimited: "bad_request", // 429 (the reference's name)
  internal: "internal", // 500
} as const;

export const ErrorBodySchema = z.object({
  error: z.string(),
  reason: z.string().optional(),
  requestId: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export const OPERATION_KINDS = ["env.activate"] as const;
export const OPERATION_STATES = ["pending", "running", "succeeded", "failed"] as const;
export const TERMINAL_OPERATION_STATES: ReadonlySet<OperationState> = new Set(["succeeded", "failed"]);

export type OperationKind = (typeof OPERATION_KINDS)[number];
export type OperationState = (typeof OPERATION_STATES)[number];

/** Idempotency key rule from the reference: 1 to 128 printable ASCII characters, no spaces. */
export const IdempotencyKeySchema = z
  .string()
  .regex(/^[\x21-\x7e]{1,128}$/, "must be 1 to 128 printable ASCII characters, no spaces");

export const StartOperationBodySchema = z.object({
  kind: z.enum(OPERATION_KINDS),
  repository: RepositorySlugSchema,
});
export type StartOperationBody = z.infer<typeof StartOperationBodySchema>;

export const READINESS_CHECK_KINDS = ["http", "tcp", "command"] as const;
export const ReadinessCheckSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("http"), url: z.string().url(), deadlineSeconds: z.number().positive() }),
  z.object({
    kind: z.literal("tcp"),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    deadlineSeconds: z.number().positive(),
  }),
  z.object({
    kind: z.literal("command"),
    command: z.string().min(1),
    deadlineSeconds: z.number().positive(),
  }),
]);
export const ReadinessSchema = z.object({ checks: z.array(ReadinessCheckSchema) });
export type ReadinessCheck = z.infer<typeof ReadinessCheckSchema>;
export type Readiness = z.infer<typeof ReadinessSchema>;

export const HANDOFF_STATES = ["available", "unavailable", "delivery_failed"] as const;
export const DOCKERFILE_STATUSES = ["not_applied", "applied"] as const;

/**
 * The current `managedStartup` handoff as `baton serve` sends it. Paths of files in the checkout are relative to
 * the checkout root; `runPath` and `evidencePath` start with `~/.baton/`. `unavailable` and `delivery_failed`
 * carry `disclosure` and null paths. src/handoff parses this and the older shapes the reference names.
 */
export const ManagedStartupSchema = z.object({
  state: z.enum(HANDOFF_STATES),
  owner: z.literal("agent"),
  versionId: z.string().min(1),
  repository: RepositorySlugSchema,
  dockerfilePath: z.string().nullable(),
  dockerfileStatus: z.enum(DOCKERFILE_STATUSES),
  agentInstructionsPath: z.string().nullable(),
  startupScriptPath: z.string().nullable(),
  runPath: z.string().nullable(),
  evidencePath: z.string().nullable(),
  readiness: ReadinessSchema,
  startupTimeoutSeconds: z.number().int().positive().optional(),
  disclosure: z.string().nullable(),
});
export type ManagedStartup = z.infer<typeof ManagedStartupSchema>;

export const VariableMappingSchema = z.object({
  repository: RepositorySlugSchema,
  name: z.string(),
  assigned: z.string(),
  source: z.enum(["sandbox.env", "secret"]),
});

export const ActivationResultSchema = z.object({
  overlayRevision: z.number().int().positive(),
  /** Original to assigned names of every live variable in the engagement; never values. */
  variables: z.array(VariableMappingSchema),
  requestId: z.string().nullable(),
  /** Parsed by src/handoff, which also accepts the legacy shapes; absent in results from older workers. */
  managedStartup: z.unknown().optional(),
});
export type ActivationResult = z.infer<typeof ActivationResultSchema>;

export const OperationSchema = z.object({
  id: z.string(),
  kind: z.enum(OPERATION_KINDS),
  state: z.enum(OPERATION_STATES),
  repository: RepositorySlugSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
  result: ActivationResultSchema.nullable(),
  error: z.object({ code: z.string(), reason: z.string() }).nullable(),
});
export type Operation = z.infer<typeof OperationSchema>;
