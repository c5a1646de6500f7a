// The channels of `Transaction.notify` and `waitForChange`, in one place. A few fixed channels, each carrying the
// id of what changed as its payload, rather than a channel per thing: an instance then LISTENs on at most this
// many channels however many long-polls it holds (PostgreSQL checks a notification against every channel a
// connection listens on, and each LISTEN/UNLISTEN is a round trip on the one LISTEN connection).

export const WAKE_CHANNELS = {
  /** An operation's state changed (pending, running, succeeded, failed); the payload is its id. */
  operations: "operations",
  /** A request for what only one instance can do was written for it; the payload is that instance's id. */
  instanceRequests: "instance_requests",
  /** An instance took or answered such a request; the payload is the request's id. */
  instanceAnswers: "instance_answers",
  /** A member stopped a running turn; the payload is the turn's id (the instance running it aborts it). */
  turnStops: "turn_stops",
  /** A webhook delivery or an issue reply was queued; the payload names the queue (WORK_QUEUES). */
  workQueues: "work_queues",
} as const;

/** The payloads of WAKE_CHANNELS.workQueues: which queue has new work. */
export const WORK_QUEUES = { webhooks: "webhooks", issuePosts: "issue_posts" } as const;

/** The fallback poll of every wait when no notification comes (`BATON_WAKE_POLL_MS`), in milliseconds. */
export const DEFAULT_WAKE_POLL_MS = 2_000;
