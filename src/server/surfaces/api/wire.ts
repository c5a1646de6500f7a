// The public API's wire constants (reference sections 4, 7 and 8): paths, header names, error codes and limits.
// Routes, the engine and the tests import these; no other file spells them.

import type { DomainErrorCode } from "../../domain/errors.js";

export const API_BASE_PATH = "/v1";

export const API_PATHS = {
  me: "/v1/me",
  meToken: "/v1/me/token",
  tasks: (workspaceId: string) => `/v1/workspaces/${encodeURIComponent(workspaceId)}/tasks`,
  task: (workspaceId: string, taskId: string) =>
    `/v1/workspaces/${encodeURIComponent(workspaceId)}/tasks/${encodeURIComponent(taskId)}`,
  stop: (workspaceId: string, taskId: string) =>
    `/v1/workspaces/${encodeURIComponent(workspaceId)}/tasks/${encodeURIComponent(taskId)}/stop`,
  messages: (workspaceId: string, taskId: string) =>
    `/v1/workspaces/${encodeURIComponent(workspaceId)}/tasks/${encodeURIComponent(taskId)}/messages`,
  /** Ours, an addition to the reference: what the agent did, per turn. */
  activity: (workspaceId: string, taskId: string) =>
    `/v1/workspaces/${encodeURIComponent(workspaceId)}/tasks/${encodeURIComponent(taskId)}/activity`,
  tickets: (workspaceId: string) => `/v1/workspaces/${encodeURIComponent(workspaceId)}/tickets`,
  delegate: (workspaceId: string) => `/v1/workspaces/${encodeURIComponent(workspaceId)}/tickets/delegate`,
} as const;

/** The same routes as patterns (`:name` is one path segment). */
export const API_ROUTE_PATTERNS = {
  me: "/v1/me",
  meToken: "/v1/me/token",
  tasks: "/v1/workspaces/:workspaceId/tasks",
  task: "/v1/workspaces/:workspaceId/tasks/:taskId",
  stop: "/v1/workspaces/:workspaceId/tasks/:taskId/stop",
  messages: "/v1/workspaces/:workspaceId/tasks/:taskId/messages",
  activity: "/v1/workspaces/:workspaceId/tasks/:taskId/activity",
  tickets: "/v1/workspaces/:workspaceId/tickets",
  delegate: "/v1/workspaces/:workspaceId/tickets/delegate",
} as const;

export const API_HEADERS = {
  authorization: "authorization",
  wwwAuthenticate: "www-authenticate",
  idempotencyKey: "idempotency-key",
  retryAfter: "retry-after",
} as const;

/** The realm of the API's Bearer challenge (RFC 6750 section 3), in the WWW-Authenticate of every 401. */
export const API_REALM = "baton";

/** Every `error` code the public API answers with, and its HTTP status (which domain code gets which: api/errors.ts). */
export const API_ERRORS = {
  invalid_prompt: 400,
  invalid_title: 400,
  invalid_repo: 400,
  invalid_idempotency_key: 400,
  invalid_status: 400,
  invalid_limit: 400,
  invalid_cursor: 400,
  invalid_request: 400,
  invalid_token: 401,
  billing_inactive: 402,
  not_found: 404,
  not_running: 409,
  not_an_api_task: 409,
  idempotency_conflict: 409,
  codehost_not_connected: 409,
  tracker_identity_unlinked: 409,
  tracker_not_connected: 409,
  codehost_account_missing: 409,
  ticket_closed: 409,
  ticket_is_pull_request: 409,
  ticket_assigned_elsewhere: 409,
  ticket_in_progress: 409,
  payload_too_large: 413,
  too_many_running: 429,
  queue_full: 429,
  bad_request: 429,
  internal: 500,
  unavailable: 503,
} as const satisfies Partial<Record<DomainErrorCode, number>>;
export type ApiErrorCode = keyof typeof API_ERRORS;

export { LIMITS, TOKEN_LIFETIME_DAYS, type TokenLifetimeDays } from "../../domain/limits.js";
/** Task status names: the client follows a task until its status is idle (no turn open). */
export { IDLE_STATUSES, TASK_STATUSES, type TaskStatus } from "../../domain/tasks/status-names.js";
