// The service's limits (reference sections 2, 4 and 8), owned by the domain: every surface enforces and reports
// the same numbers. The public API's wire file re-exports them.

export const LIMITS = {
  /** Tasks from the client, MCP or API starting, running or queued, per user per workspace. */
  runningTasksPerUser: 5,
  /** Retry-After of a 429 that waits for a task to end (too_many_running, queue_full): when that is, is unknown. */
  busyRetryAfterSeconds: 60,
  /** Requests per token per endpoint per minute. */
  getPerMinute: 600,
  postOrDeletePerMinute: 120,
  promptMaxChars: 100_000,
  titleMaxChars: 200,
  titleDefaultChars: 80,
  taskPage: { min: 1, max: 100, default: 50 },
  messagePage: { min: 1, max: 200, default: 100 },
  /** Ours: one turn's activity as kept, in JSON characters (the ACP adapter keeps the same budget). */
  activityMaxChars: 4 * 1024 * 1024,
  /** Ours: GET .../activity's turns per page, and the JSON characters after which a page ends early. */
  activityPage: { min: 1, max: 20, default: 5 },
  activityPageMaxChars: 16 * 1024 * 1024,
  ticketQueryMaxChars: 200,
  ticketsPerSource: 10,
} as const;

/** Token lifetimes a person can pick (reference section 2, "Access token"). */
export const TOKEN_LIFETIME_DAYS = [30, 90, 365] as const;
export type TokenLifetimeDays = (typeof TOKEN_LIFETIME_DAYS)[number];

/** A personal access token's name: 1 to 100 characters after trimming. */
export const TOKEN_NAME_MAX_CHARS = 100;
