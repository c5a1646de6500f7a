// The closed set of Baton errors. Each has a stable `code`; src/cli/exit-codes.ts maps codes to exit codes.

export const ERROR_CODES = [
  "usage", // bad arguments or flags
  "invalid_input", // a file, body or value failed validation
  "unsafe_path", // a write or read would cross a symbolic link, a foreign-owned folder or an allowed root
  "not_configured", // a required setting (URL, token, lease) is missing
  "unauthorised", // the service refused the token or lease
  "not_logged_in", // the client commands have no saved sign-in, or it has lapsed: run `baton login`
  "not_found", // the service or disk has no such thing
  "conflict", // the service refused because of a conflicting earlier request
  "network", // the service could not be reached
  "service_error", // the service answered with an unexpected error
  "operation_failed", // an environment operation ended in `failed`
  "rollout_disabled", // the workspace has no repository-environments rollout (or any HTTP 403 refusal)
  "step_failed", // a Dockerfile step or startup script failed
  "still_working", // the client stopped waiting while the work goes on
  "task_failed", // the followed task failed, was cancelled, or is paused on access or billing
  "policy_denied", // `baton proxy check`: the egress policy denies the destination (already printed)
  "refused", // an operator command will not act on what it was given (migrate-store: an older file, a target with rows)
  "check_failed", // a copy read back differs from its source (migrate-store: nothing was committed)
  "internal", // a bug: the message says what happened
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface BatonErrorOptions {
  cause?: unknown;
  /** Where in the input the problem is, e.g. `repositories[0].variables[2].assigned`. */
  path?: string;
  /** Extra machine-readable facts, never a secret value. */
  details?: Record<string, unknown>;
}

/**
 * Marks every BatonError, also across two copies of this module (the bundled CLI loads the service's modules
 * from the compiled tree, so `instanceof` alone would miss an error thrown there).
 */
const BATON_ERROR = Symbol.for("baton.error");

export class BatonError extends Error {
  override readonly name: string = "BatonError";
  readonly [BATON_ERROR] = true;
  readonly code: ErrorCode;
  readonly path: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: BatonErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.path = options.path;
    this.details = options.details;
  }
}

export class UsageError extends BatonError {
  override readonly name = "UsageError";
  constructor(message: string, options?: BatonErrorOptions) {
    super("usage", message, options);
  }
}

export class InputError extends BatonError {
  override readonly name = "InputError";
  constructor(message: string, options?: BatonErrorOptions) {
    super("invalid_input", message, options);
  }
}

export class UnsafePathError extends BatonError {
  override readonly name = "UnsafePathError";
  constructor(message: string, options?: BatonErrorOptions) {
    super("unsafe_path", message, options);
  }
}

export class ConfigError extends BatonError {
  override readonly name = "ConfigError";
  constructor(message: string, options?: BatonErrorOptions) {
    super("not_configured", message, options);
  }
}

/** An HTTP-level refusal or failure from a Baton service; `status` is the HTTP status when there was one. */
export class ServiceError extends BatonError {
  override readonly name = "ServiceError";
  readonly status: number | undefined;
  constructor(
    code: Extract<
      ErrorCode,
      "unauthorised" | "not_found" | "conflict" | "network" | "service_error" | "invalid_input"
    >,
    message: string,
    options: BatonErrorOptions & { status?: number } = {},
  ) {
    super(code, message, options);
    this.status = options.status;
  }
}

/** Exit 6: an environment operation failed, or the rollout-disabled refusal (any HTTP 403). */
export class EnvironmentOperationError extends BatonError {
  override readonly name = "EnvironmentOperationError";
  constructor(
    code: Extract<ErrorCode, "operation_failed" | "rollout_disabled">,
    message: string,
    options?: BatonErrorOptions,
  ) {
    super(code, message, options);
  }
}

export class StepFailedError extends BatonError {
  override readonly name = "StepFailedError";
  constructor(message: string, options?: BatonErrorOptions) {
    super("step_failed", message, options);
  }
}

export class StillWorkingError extends BatonError {
  override readonly name = "StillWorkingError";
  constructor(message: string, options?: BatonErrorOptions) {
    super("still_working", message, options);
  }
}

/** Exit 2: an operator command refuses its input and has changed nothing; the message says what to do first. */
export class RefusedError extends BatonError {
  override readonly name = "RefusedError";
  constructor(message: string, options?: BatonErrorOptions) {
    super("refused", message, options);
  }
}

/** What a caught value was, for a log line or a recorded outcome: `Name: message`, never its stack. */
export const describeThrown = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : "non-Error thrown";

export function isBatonError(value: unknown): value is BatonError {
  return (
    value instanceof BatonError ||
    (value instanceof Error && (value as unknown as Record<symbol, unknown>)[BATON_ERROR] === true)
  );
}
