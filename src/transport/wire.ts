// The operations transport's wire contract (DESIGN.md "Our operations transport"): header names, paths,
// states, error codes and body schemas. Client (src/transport) and server (src/server) both import this file;
// no other file spells these strings.
import * as z from "zod";
import { DESTINATION_RULE, parseApprovedDestination } from "../capability/destination.js";
import { CAPABILITY_KINDS } from "../capability/kinds.js";
import { MERGE_OUTCOMES } from "../capability/matcher.js";
import { CAPABILITY_STATUSES, EVIDENCE_OUTCOMES } from "../capability/transitions.js";
import { EnvValueSchema, OverlaySchema, RepositorySlugSchema } from "../envfile/overlay.js";

export const HEADERS = {
  authorization: "authorization",
  sandboxLease: "baton-sandbox-lease",
  idempotencyKey: "idempotency-key",
  adminToken: "baton-admin-token",
  retryAfter: "retry-after",
  requestId: "baton-request-id",
  /** Read by `baton serve` only from a front named by `--trusted-proxy` (src/throttle/client-address.ts). */
  forwardedFor: "x-forwarded-for",
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

/** The egress proxy's refusals for the calling sandbox (`baton op get`, the disclosure). */
export const PROXY_REFUSALS_PATH = `${OPS_BASE_PATH}/proxy/refusals`;

/** One refusal of the egress proxy, as the sandbox reads it back (never a secret value). */
export const ProxyRefusalWireSchema = z.object({
  requestId: z.string(),
  at: z.string(),
  method: z.string(),
  host: z.string(),
  port: z.number().int(),
  /** The `Baton-Proxy-Error` code: destination_denied, rule_denied, dns_failed, upstream_timeout, ... */
  code: z.string(),
  status: z.number().int(),
  reason: z.string(),
});
export type ProxyRefusalWire = z.infer<typeof ProxyRefusalWireSchema>;
export const ProxyRefusalsResponseSchema = z.object({ refusals: z.array(ProxyRefusalWireSchema) });

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
  invalidRepo: "invalid_repo", // 400 the repository is known to the workspace but disconnected
  invalidIdempotencyKey: "invalid_idempotency_key", // 400
  idempotencyConflict: "idempotency_conflict", // 409
  operationNotSucceeded: "operation_not_succeeded", // 409 overlay asked for before the operation succeeded
  forbidden: "forbidden", // 403 for a member without the owner/admin role
  conflict: "conflict", // 409 the admin API: a seed or engagement that clashes with what the service holds
  rateLimited: "bad_request", // 429 (the reference's name)
  methodNotAllowed: "method_not_allowed", // 405 the path exists, the method does not (`allow` names those that do)
  payloadTooLarge: "payload_too_large", // 413 the body passed the route's limit
  unsupportedMediaType: "unsupported_media_type", // 415 a body that is not application/json
  internal: "internal", // 500
  invalidBatonrc: "invalid_batonrc", // 400 the checkout's .batonrc.json failed its lint (sandbox manager)
  ownerUnreachable: "owner_unreachable", // 503 the instance that runs the box or turn cannot be reached now
} as const;

/** The reason of every 404 for a path no route serves here (also a surface that is not enabled). */
export const NO_SUCH_ROUTE = "no such route";

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

/**
 * The answer to POST PATHS.operations: the operation, and when its state is `succeeded` the overlay it produced
 * (what GET PATHS.operationOverlay answers), so the client needs no second request. Services before this field
 * leave it out; a client then fetches the overlay.
 */
export const StartOperationAnswerSchema = OperationSchema.extend({ overlay: OverlaySchema.optional() });
export type StartOperationAnswer = z.infer<typeof StartOperationAnswerSchema>;

// ---- Server side (`baton serve`): route patterns, admin API, operation failure codes, secret placeholders ----

/** Route patterns as the server's router matches them (`:name` is one path segment). */
export const ROUTE_PATTERNS = {
  health: "/healthz",
  openapi: "/openapi.json",
  operations: `${OPS_BASE_PATH}/operations`,
  operation: `${OPS_BASE_PATH}/operations/:id`,
  operationOverlay: `${OPS_BASE_PATH}/operations/:id/overlay`,
  proxyRefusals: PROXY_REFUSALS_PATH,
} as const;

export const ADMIN_BASE_PATH = "/admin/v1";
export const ADMIN_PATHS = {
  seed: `${ADMIN_BASE_PATH}/seed`,
  sandboxes: `${ADMIN_BASE_PATH}/sandboxes`,
  turns: `${ADMIN_BASE_PATH}/turns`,
  disconnectRepository: `${ADMIN_BASE_PATH}/repositories/disconnect`,
  tokens: `${ADMIN_BASE_PATH}/tokens`,
  billing: `${ADMIN_BASE_PATH}/workspaces/billing`,
  plan: `${ADMIN_BASE_PATH}/workspaces/plan`,
  /** Sandbox manager (issue 12): one sandbox, its commands, its lifecycle events, and the sweeps. */
  sandbox: `${ADMIN_BASE_PATH}/sandboxes/:id`,
  sandboxExec: `${ADMIN_BASE_PATH}/sandboxes/:id/exec`,
  sandboxEvents: `${ADMIN_BASE_PATH}/sandboxes/:id/events`,
  sandboxCopyOut: `${ADMIN_BASE_PATH}/sandboxes/:id/copy-out`,
  sandboxSweeps: `${ADMIN_BASE_PATH}/sandbox-sweeps`,
  /** Manual agent mode (`baton serve --agent manual`): an operator answers a task's waiting turn. */
  taskAnswer: `${ADMIN_BASE_PATH}/tasks/:id/answer`,
} as const;

/** `POST /admin/v1/tokens`: a personal access token for a member; the answer is the only time it is shown. */
export const CreateTokenBodySchema = z.object({
  email: z.email(),
  name: z.string().trim().min(1).max(100),
  lifetimeDays: z.union([z.literal(30), z.literal(90), z.literal(365)]),
});
export const CreateTokenResponseSchema = z.object({
  id: z.string(),
  token: z.string(),
  name: z.string(),
  lastFour: z.string(),
  email: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
/** How an operator ends a waiting turn in manual agent mode: the agent's reply, a question back, or a failure. */
export const TURN_ANSWER_KINDS = ["reply", "clarify", "fail"] as const;
export const AnswerTurnBodySchema = z.object({
  kind: z.enum(TURN_ANSWER_KINDS),
  /** The reply or question the member reads, or the failure's reason. */
  text: z.string().trim().min(1).max(100_000),
});
export type AnswerTurnBody = z.infer<typeof AnswerTurnBodySchema>;
export const AnswerTurnResponseSchema = z.object({
  taskId: z.string(),
  workspaceId: z.string(),
  kind: z.enum(TURN_ANSWER_KINDS),
  /** The task's status once the turn has ended with the answer (replied, failed...). */
  status: z.string(),
});
/** Refusals of `POST /admin/v1/tasks/:id/answer` (409). */
export const TURN_ANSWER_ERRORS = {
  agentNotManual: "agent_not_manual", // the service runs another agent: nothing waits for an operator
  turnNotWaiting: "turn_not_waiting", // the task has no turn waiting for an answer (queued, ended, or not there yet)
} as const;

export const SetBillingBodySchema = z.object({
  workspaceId: z.string().min(1),
  state: z.enum(["active", "inactive"]),
});
export const SetPlanBodySchema = z.object({
  workspaceId: z.string().min(1),
  name: z.string().min(1).max(100).optional(),
  concurrency: z.number().int().min(1).max(1000),
  queueSize: z.number().int().min(0).max(100_000),
});

/** `error.code` of a `failed` operation. */
export const OPERATION_ERRORS = {
  turnExpired: "turn_expired", // the turn authorisation expired before the operation committed
  leaseExpired: "lease_expired", // the sandbox lease expired before the operation committed
  repositoryDisconnected: "repository_disconnected",
  rolloutDisabled: "rollout_disabled", // the rollout was switched off after the operation was accepted
  interrupted: "interrupted", // the service stopped mid-operation too many times (kill -9, crash)
  invalidConfiguration: "invalid_configuration", // the repository's variables cannot be named
} as const;

/**
 * The `managedStartup.versionId` when a repository has no environment version at all (state `unavailable`).
 */
export const NO_ENVIRONMENT_VERSION_ID = "none";
export const RUNNER_RUN_PATH = "~/.baton/runner/baton-runner.cjs";
export const evidencePathFor = (repository: string): string =>
  `~/.baton/evidence/${repository.replace("/", "__")}.json`;

/**
 * Secret placeholders: what the overlay carries instead of a secret's value. `baton-secret-<secretId>` where the
 * id is `sec_` and 32 random lowercase hex digits, so a placeholder is unguessable, safe in headers, URLs and
 * shell words, and the egress proxy can find it with SECRET_PLACEHOLDER_PATTERN and swap in the value for the
 * secret's allowed hosts only.
 */
export const SECRET_PLACEHOLDER_PREFIX = "baton-secret-";
export const SECRET_PLACEHOLDER_PATTERN = /baton-secret-(sec_[0-9a-f]{32})/g;
export const formatSecretPlaceholder = (secretId: string): string =>
  `${SECRET_PLACEHOLDER_PREFIX}${secretId}`;

export const CreateSandboxBodySchema = z.object({
  workspaceId: z.string().min(1),
  engagementId: z.string().min(1),
  leaseTtlSeconds: z.number().int().positive().optional(),
  turnTtlSeconds: z.number().int().positive().optional(),
  /** With a sandbox driver (`baton serve --sandbox-driver`): reuse this sandbox (ownership checked). */
  sandboxId: z.string().min(1).optional(),
  /** The repository the box is for; its secrets' placeholders join the box's variables. */
  repository: RepositorySlugSchema.optional(),
  /** A folder under the service's `--checkout-root`, copied into the box at ~/checkouts/<owner>/<name> (needs `repository`). */
  checkout: z.string().startsWith("/", "must be an absolute path on the service's machine").optional(),
  /** `.batonrc.json` of a known repository (read from `checkout` when that is given). */
  batonrc: z.unknown().optional(),
  /** An image for a new engagement (an engagement's first image is pinned and wins afterwards). */
  image: z.string().min(1).max(255).optional(),
});
const SandboxTransitionSchema = z.object({
  from: z.string().nullable(),
  to: z.string(),
  reason: z.string(),
});
/** A sandbox as the admin API shows it (with `--sandbox-driver docker|namespace`). */
export const SandboxViewSchema = z.object({
  sandboxId: z.string(),
  workspaceId: z.string(),
  engagementId: z.string(),
  driver: z.string(),
  ref: z.string().nullable(),
  image: z.string(),
  repository: z.string().nullable(),
  state: z.enum(["running", "stopped", "archived", "eligible_for_deletion", "deleted"]),
  lastActivityAt: z.string(),
  stateChangedAt: z.string(),
  createdAt: z.string(),
  preClone: z.array(
    z.object({
      command: z.string(),
      exitCode: z.number(),
      timedOut: z.boolean(),
      durationMs: z.number(),
      output: z.string(),
    }),
  ),
  postClone: z.array(z.string()),
  transitions: z.array(SandboxTransitionSchema.extend({ at: z.string() })),
});
export const CreateSandboxResponseSchema = z.object({
  sandboxId: z.string(),
  engagementId: z.string(),
  lease: z.string(),
  turnToken: z.string(),
  leaseExpiresAt: z.string(),
  turnExpiresAt: z.string(),
  /** With a driver: every variable the box has (proxy settings, sandbox.env, placeholders) besides these. */
  env: z
    .object({
      BATON_OPS_URL: z.string(),
      BATON_TURN_TOKEN: z.string(),
      BATON_SANDBOX_LEASE: z.string(),
      /** The egress proxy, when `baton serve --proxy-url` names one; activation writes the proxy settings. */
      BATON_PROXY_URL: z.string().optional(),
    })
    .catchall(z.string()),
  sandbox: SandboxViewSchema.optional(),
  reused: z.boolean().optional(),
});
export const SandboxListResponseSchema = z.object({
  driver: z.string(),
  sandboxes: z.array(SandboxViewSchema),
});
export const SandboxExecResponseSchema = z.object({
  exitCode: z.number(),
  stdout: z.string(),
  stderr: z.string(),
  timedOut: z.boolean(),
});
export const SandboxTransitionResponseSchema = z.object({
  transition: SandboxTransitionSchema.nullable(),
  sandbox: SandboxViewSchema.optional(),
});
export const SandboxSweepResponseSchema = z.object({
  transitions: z.array(z.object({ sandboxId: z.string(), transition: SandboxTransitionSchema })),
});
export const CreateTurnBodySchema = z.object({
  engagementId: z.string().min(1),
  ttlSeconds: z.number().int().positive().optional(),
});
export const CreateTurnResponseSchema = z.object({ turnToken: z.string(), turnExpiresAt: z.string() });
export const DisconnectRepositoryBodySchema = z.object({
  workspaceId: z.string().min(1),
  repository: RepositorySlugSchema,
});
export const OkResponseSchema = z.object({ ok: z.literal(true) });

export const SandboxOwnerSchema = z.object({
  workspaceId: z.string().min(1),
  engagementId: z.string().min(1),
});
export const SandboxExecBodySchema = SandboxOwnerSchema.extend({
  command: z.array(z.string()).min(1),
  timeoutSeconds: z
    .number()
    .positive()
    .max(24 * 60 * 60)
    .default(600),
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.string()).optional(),
  cwd: z.string().startsWith("/").optional(),
  stdin: z.string().optional(),
});
/** A file or folder of the box's home or /tmp, answered as a tar archive (application/x-tar). */
export const SandboxCopyOutBodySchema = SandboxOwnerSchema.extend({
  path: z.string().startsWith("/").max(4096),
});
export const SANDBOX_EVENTS = ["work_finished", "cancelled"] as const;
export const SandboxEventBodySchema = SandboxOwnerSchema.extend({ event: z.enum(SANDBOX_EVENTS) });
export const SandboxSweepBodySchema = z.object({ kind: z.enum(["sweep", "cleanup"]) });

// ---- Capability requests (reference sections 2-4; README "Capability requests") ----

export const CAPABILITY_REQUEST_ID_PREFIX = "cr_";
export const isCapabilityRequestId = (id: string): boolean => id.startsWith(CAPABILITY_REQUEST_ID_PREFIX);

const seg = encodeURIComponent;
export const CAPABILITY_PATHS = {
  requests: `${OPS_BASE_PATH}/capability-requests`,
  request: (id: string) => `${OPS_BASE_PATH}/capability-requests/${seg(id)}`,
  evidence: (id: string) => `${OPS_BASE_PATH}/capability-requests/${seg(id)}/evidence`,
  redeliver: (id: string) => `${OPS_BASE_PATH}/capability-requests/${seg(id)}/redeliver`,
  list: (workspaceId: string, repoId: string) =>
    `/workspaces/${seg(workspaceId)}/repos/${seg(repoId)}/capability-requests`,
  dismiss: (workspaceId: string, repoId: string, requestId: string) =>
    `/workspaces/${seg(workspaceId)}/repos/${seg(repoId)}/capability-requests/${seg(requestId)}/dismiss`,
  secret: (workspaceId: string, repoId: string, name: string) =>
    `/workspaces/${seg(workspaceId)}/repos/${seg(repoId)}/secrets/${seg(name)}`,
} as const;

/** The member routes' mount point (personal access token); their paths are in CAPABILITY_ROUTE_PATTERNS. */
export const MEMBER_BASE_PATH = "/workspaces";

export const CAPABILITY_ROUTE_PATTERNS = {
  requests: `${OPS_BASE_PATH}/capability-requests`,
  request: `${OPS_BASE_PATH}/capability-requests/:id`,
  evidence: `${OPS_BASE_PATH}/capability-requests/:id/evidence`,
  redeliver: `${OPS_BASE_PATH}/capability-requests/:id/redeliver`,
  list: "/workspaces/:workspaceId/repos/:repoId/capability-requests",
  dismiss: "/workspaces/:workspaceId/repos/:repoId/capability-requests/:requestId/dismiss",
  secret: "/workspaces/:workspaceId/repos/:repoId/secrets/:name",
} as const;

/** Personal access tokens (`btn_<secret>`) authenticate the workspace routes as `Authorization: Bearer`. */
export const PERSONAL_TOKEN_PREFIX = "btn_";

export const CAPABILITY_WIRE_ERRORS = {
  secretHostsMismatch: "secret_hosts_mismatch", // 400 the secret's allowed hosts do not authorise the target
  requestClosed: "request_closed", // 409 the request is dismissed or verified and cannot take access
  noMatchingRequest: "no_matching_request", // 404 evidence for a request that was never recorded
} as const;

export const CapabilityKindSchema = z.enum(CAPABILITY_KINDS);
export const CapabilityStatusSchema = z.enum(CAPABILITY_STATUSES);
export const EvidenceOutcomeSchema = z.enum(EVIDENCE_OUTCOMES);

export const EvidenceBodySchema = z.object({
  outcome: EvidenceOutcomeSchema,
  status: z.union([z.literal(401), z.literal(403)]).optional(),
});
export type EvidenceBody = z.infer<typeof EvidenceBodySchema>;

/** The agent's report. `capability` may be a legacy label; `target` and `reason` are validated by the service. */
export const RecordCapabilityBodySchema = z.object({
  repository: RepositorySlugSchema,
  capability: z.string().min(1).max(64),
  target: z.string().max(4096),
  reason: z.string().max(8192).optional(),
  evidence: EvidenceBodySchema.optional(),
});
export type RecordCapabilityBody = z.infer<typeof RecordCapabilityBodySchema>;

export const CapabilityRequestSchema = z.object({
  requestId: z.string(),
  workspaceId: z.string(),
  repositoryId: z.string(),
  repository: RepositorySlugSchema,
  kind: CapabilityKindSchema,
  target: z.string(),
  targetForm: z.enum(["host", "name"]),
  reason: z.string(),
  status: CapabilityStatusSchema,
  accessSupplied: z.boolean(),
  lastOutcome: z
    .object({ outcome: EvidenceOutcomeSchema, status: z.number().int().nullable(), at: z.string() })
    .nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type CapabilityRequest = z.infer<typeof CapabilityRequestSchema>;

export const MATCHED_BY = ["target", "matcher"] as const;
/**
 * How the service delivers owners' e-mail: `sending` with an SMTP relay (`--smtp-url`), `queued` without one (the
 * notifications wait in the outbox until the service is started with a relay). Absent from older services.
 */
export const EMAIL_DELIVERY = ["sending", "queued"] as const;
export const EmailDeliverySchema = z.enum(EMAIL_DELIVERY);
export type EmailDelivery = z.infer<typeof EmailDeliverySchema>;
export const RecordCapabilityResponseSchema = z.object({
  request: CapabilityRequestSchema,
  matched: z.boolean(),
  matchedBy: z.enum(MATCHED_BY).nullable(),
  /** What the semantic matcher said, when it was asked (`timeout`, `error`, `unavailable` never merge). */
  matcher: z
    .object({
      outcome: z.enum(MERGE_OUTCOMES),
      confidence: z.number().nullable(),
    })
    .nullable(),
  evidence: z.object({ outcome: EvidenceOutcomeSchema, changed: z.boolean() }).nullable(),
  emailDelivery: EmailDeliverySchema.optional(),
});
export type RecordCapabilityResponse = z.infer<typeof RecordCapabilityResponseSchema>;

export const DELIVERY_STATES = ["pending", "sent", "failed"] as const;
export const NotificationSchema = z.object({
  id: z.string(),
  kind: z.enum(["new_request", "repair"]),
  createdAt: z.string(),
  deliveries: z.array(
    z.object({
      /** Masked in the sandbox's view (`o***@acme.test`). */
      recipient: z.string(),
      state: z.enum(DELIVERY_STATES),
      attempts: z.number().int(),
      lastError: z.string().nullable(),
      sentAt: z.string().nullable(),
    }),
  ),
});
export const CapabilityRequestViewSchema = z.object({
  request: CapabilityRequestSchema,
  notifications: z.array(NotificationSchema),
  emailDelivery: EmailDeliverySchema.optional(),
});
export type CapabilityRequestView = z.infer<typeof CapabilityRequestViewSchema>;
export const RedeliverResponseSchema = CapabilityRequestViewSchema.extend({
  redelivered: z.array(z.object({ notificationId: z.string(), recipient: z.string() })),
});
export type RedeliverResponse = z.infer<typeof RedeliverResponseSchema>;

export const CapabilityListResponseSchema = z.object({ requests: z.array(CapabilityRequestSchema) });
export const DismissResponseSchema = z.object({ request: CapabilityRequestSchema });

/**
 * One approved destination of a secret: a lowercase host (optionally `*.`), optionally with `http(s)://`, `:port`
 * and a `/path` prefix. A bare host means https, port 443, any path (DESIGN "Approved destinations").
 */
export const ApprovedDestinationSchema = z
  .string()
  .max(512)
  .regex(
    /^(https?:\/\/)?(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?(:[0-9]{1,5})?(\/[^?#\s]*)?$/,
    DESTINATION_RULE,
  )
  .refine((text) => parseApprovedDestination(text) !== null, DESTINATION_RULE);

export const PutSecretBodySchema = z.object({
  // The seed's rule for secret values (no NUL, no lone surrogate), checked in the same order as before.
  value: z.string().min(1).max(65536).pipe(EnvValueSchema),
  allowedHosts: z.array(ApprovedDestinationSchema).min(1),
  capabilityRequestId: z.string().min(1).optional(),
});
export type PutSecretBody = z.infer<typeof PutSecretBodySchema>;
export const PutSecretResponseSchema = z.object({
  name: z.string(),
  allowedHosts: z.array(z.string()),
  created: z.boolean(),
  updatedAt: z.string(),
  /** Requests whose state this write changed (the bound one, or every request bound to a rotated secret). */
  capabilityRequests: z.array(CapabilityRequestSchema),
});
