// Waiting on the agent: an ACP request's answer raced against the agent failing (exit, garbage, a closed stream),
// a deadline and the turn's stop signal; the first of them is the outcome, as a value.
import { RequestError } from "@agentclientprotocol/sdk";

/** The first reason the agent failed for; later ones are dropped (an exit after garbage says less). */
export class Failure {
  private first: string | undefined;
  private resolve!: (reason: string) => void;
  readonly reached = new Promise<string>((resolve) => {
    this.resolve = resolve;
  });

  get reason(): string | undefined {
    return this.first;
  }

  fail(reason: string): void {
    if (this.first !== undefined) return;
    this.first = reason;
    this.resolve(reason);
  }
}

export type Settled<T> =
  | { kind: "value"; value: T }
  /** The agent answered the request with a JSON-RPC error. */
  | { kind: "error"; code: number; message: string }
  | { kind: "failed"; reason: string }
  | { kind: "deadline" }
  | { kind: "aborted" };

/** How long a request rejected by a closed connection waits for the reason (the exit usually follows at once). */
const REASON_WAIT_MS = 2000;

export async function settle<T>(
  request: Promise<T>,
  failure: Failure,
  options: { deadlineMs?: number; signal?: AbortSignal },
): Promise<Settled<T>> {
  const timers: NodeJS.Timeout[] = [];
  const later = (ms: number) =>
    new Promise<void>((resolve) => {
      // The agent's process holds the event loop; a pending wait alone must not.
      timers.push(setTimeout(resolve, ms).unref());
    });
  let onAbort: (() => void) | undefined;
  const answered = request.then(
    (value): Settled<T> => ({ kind: "value", value }),
    async (error: unknown): Promise<Settled<T>> => {
      if (error instanceof RequestError) return { kind: "error", code: error.code, message: error.message };
      // The connection closed under the request: the agent's failure says why.
      const reason = await Promise.race([failure.reached, later(REASON_WAIT_MS).then(() => undefined)]);
      return { kind: "failed", reason: reason ?? "closed the connection" };
    },
  );
  const racers: Promise<Settled<T>>[] = [
    answered,
    failure.reached.then((reason): Settled<T> => ({ kind: "failed", reason })),
  ];
  if (options.deadlineMs !== undefined)
    racers.push(later(options.deadlineMs).then((): Settled<T> => ({ kind: "deadline" })));
  const { signal } = options;
  if (signal) {
    racers.push(
      new Promise<Settled<T>>((resolve) => {
        onAbort = () => resolve({ kind: "aborted" });
        if (signal.aborted) onAbort();
        else signal.addEventListener("abort", onAbort, { once: true });
      }),
    );
  }
  try {
    return await Promise.race(racers);
  } finally {
    for (const timer of timers) clearTimeout(timer);
    if (signal && onAbort) signal.removeEventListener("abort", onAbort);
  }
}
