// The keys of `Transaction.lock` the domain takes (PostgreSQL advisory locks, shared by every instance on one
// database; no-ops on SQLite, whose write transactions already run one at a time). A transaction that takes
// several takes them in the order listed here, so no two wait on each other.

/** A request with an Idempotency-Key, from its lookup to its commit (domain/tasks/idempotency.ts). */
export const idempotencyLock = (userId: string, key: string): string => `idempotency:${userId}:${key}`;

/** A task's open turn, from reading its state to changing it: a stop, a hand-over, a turn's begin, end or takeover. */
export const taskLock = (taskId: string): string => `task:${taskId}`;

/**
 * A workspace's plan slots: whatever counts its running and queued turns and then starts, queues or promotes
 * one (a start, a hand-over, a turn's end) holds it, as does the person's limit of open tasks, counted with them.
 */
export const workspaceSlotsLock = (workspaceId: string): string => `workspace-slots:${workspaceId}`;

/** The local code host's pull-request numbering in one repository: the highest number is read, the next added. */
export const pullRequestNumberLock = (workspaceId: string, repo: string): string =>
  `pull-request-number:${workspaceId}:${repo}`;

/** One rate-limit key's admitted hits, from counting them to recording this one (store/rate-hits.ts). */
export const rateLimitLock = (key: string): string => `rate-limit:${key}`;
/**
 * A workspace's capability requests, from the re-read of an Idempotency-Key's answer and of a request for the same
 * target to the commit of a new one (domain/capability/record.ts): concurrent duplicates share one request.
 */
export const capabilityRecordLock = (workspaceId: string): string => `capability-record:${workspaceId}`;

/** One source address's failed credentials, from reading its window to writing it (store/credential-failures.ts). */
export const credentialFailuresLock = (source: string): string => `credential-failures:${source}`;
