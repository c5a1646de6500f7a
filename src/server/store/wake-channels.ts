// The channels of `Transaction.notify` and `waitForChange`, in one place. A few fixed channels, each carrying the
// id of what changed as its payload, rather than a channel per thing: an instance then LISTENs on at most this
// many channels however many long-polls it holds (PostgreSQL checks a notification against every channel a
// connection listens on, and each LISTEN/UNLISTEN is a round trip on the one LISTEN connection).

export const WAKE_CHANNELS = {
  /** An operation's state changed (pending, running, succeeded, failed); the payload is its id. */
  operations: "operations",
} as const;

/** The fallback poll of every wait when no notification comes (`BATON_WAKE_POLL_MS`), in milliseconds. */
export const DEFAULT_WAKE_POLL_MS = 2_000;
