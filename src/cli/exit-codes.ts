// The one table from error codes to the reference's exit codes (section 4, "Exit codes").
import type { ErrorCode } from "../errors.js";

export const EXIT = {
  ok: 0,
  error: 1,
  taskFailed: 2,
  /** An operator command refused its input and changed nothing (the same number as the client's task exit). */
  refused: 2,
  stillWorking: 3,
  environmentFailed: 6,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

const EXIT_CODE_BY_ERROR: Record<ErrorCode, ExitCode> = {
  usage: EXIT.error,
  invalid_input: EXIT.error,
  unsafe_path: EXIT.error,
  not_configured: EXIT.error,
  unauthorised: EXIT.error,
  not_logged_in: EXIT.error,
  not_found: EXIT.error,
  conflict: EXIT.error,
  network: EXIT.error,
  service_error: EXIT.error,
  step_failed: EXIT.error,
  internal: EXIT.error,
  still_working: EXIT.stillWorking,
  task_failed: EXIT.taskFailed,
  policy_denied: EXIT.error,
  refused: EXIT.refused,
  check_failed: EXIT.error,
  operation_failed: EXIT.environmentFailed,
  rollout_disabled: EXIT.environmentFailed,
};

export function exitCodeFor(code: ErrorCode): ExitCode {
  return EXIT_CODE_BY_ERROR[code];
}
