// Asking another instance on the same store to do what only it can (run a command in a box its driver runs, copy
// out of it, remove it; answer a manual turn it runs), and doing what others ask of this one. The request goes
// through the store (request-rows.ts): no instance needs another's address, nor a secret beyond the database's.
// The owner wakes on the store's notification (PostgreSQL NOTIFY), or on its fallback poll when a notification
// was lost, and answers through the store; the asker wakes on the answer's notification. Every wait is bounded:
// an owner that does not take a request within `pickupMs` (stopped, killed, stalled) is reported at once, and
// one that took it but does not answer within the caller's time limit too, each with a clear error.
import { randomBytes } from "node:crypto";
import type { Logger } from "pino";
import { z } from "zod";
import { BatonError, describeThrown, ERROR_CODES, type ErrorCode, isBatonError } from "../../../errors.js";
import type { InstanceIdentity } from "../../primitives/instance.js";
import type { Store } from "../../store/store.js";
import { waitForChange } from "../../store/wake.js";
import { WAKE_CHANNELS } from "../../store/wake-channels.js";
import {
  answerRequest,
  anyRequestFor,
  deleteExpiredRequests,
  deleteRequest,
  insertRequest,
  readRequest,
  takeNextRequest,
  withdrawRequest,
} from "./request-rows.js";

/** How long an owner has to take a request before the asker reports it unreachable. */
export const DEFAULT_PICKUP_MS = 10_000;
/** Rows an asker left behind (it died while waiting) are deleted this long after their pickup deadline. */
const LEFT_ROWS_GRACE_MS = 6 * 60 * 60 * 1000;
const SWEEP_EVERY_MS = 10 * 60 * 1000;
/** How long a stopping instance waits for the requests in hand to be answered. */
const STOP_GRACE_MS = 5_000;

/** The instance that owns what was asked for cannot be reached now: stopped, killed or stalled. */
export class InstanceUnreachable extends BatonError {
  override readonly name = "InstanceUnreachable";
  constructor(message: string) {
    super("network", message);
  }
}

/** The owner refused or failed: its error's code and message, and its class name and reason for the caller. */
export class RemoteRefusal extends BatonError {
  override readonly name = "RemoteRefusal";
  constructor(
    code: ErrorCode,
    message: string,
    readonly remote: { name: string; reason?: string | undefined },
  ) {
    super(code, message);
  }
}

const AnswerSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({
    ok: z.literal(false),
    error: z.object({
      code: z.string(),
      message: z.string(),
      name: z.string(),
      reason: z.string().optional(),
    }),
  }),
]);
type Answer = z.infer<typeof AnswerSchema>;

export type RelayHandler = (body: unknown) => Promise<unknown>;

export interface InstanceRelayOptions {
  db: Store;
  me: InstanceIdentity;
  logger: Logger;
  now: () => Date;
  /** The fallback poll for requests when no notification came, and the askers' (BATON_WAKE_POLL_MS). */
  pollMs: number;
  pickupMs?: number | undefined;
}

export class InstanceRelay {
  private readonly handlers = new Map<string, RelayHandler>();
  private readonly inFlight = new Set<Promise<void>>();
  private stopListening: (() => Promise<void>) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  private running = false;
  private lastSweepMs = 0;

  constructor(private readonly options: InstanceRelayOptions) {}

  get me(): InstanceIdentity {
    return this.options.me;
  }

  /** What this instance does for a request of `kind`; its return value (JSON) is the answer. */
  handle(kind: string, handler: RelayHandler): void {
    this.handlers.set(kind, handler);
  }

  async start(): Promise<void> {
    const { db, me, pollMs } = this.options;
    this.running = true;
    this.stopListening = await db.listen(WAKE_CHANNELS.instanceRequests, (payload) => {
      // An empty payload is the store's "look again" after its LISTEN connection came back.
      if (payload === me.id || payload === "") this.drain();
    });
    this.timer = setInterval(() => void this.poll(), pollMs);
    this.timer.unref();
    this.drain();
  }

  /**
   * Takes no more requests, and gives those in hand up to `graceMs` to answer (a relayed command may run for hours:
   * its asker then hears that this instance did not answer).
   */
  async stop(graceMs = STOP_GRACE_MS): Promise<void> {
    this.running = false;
    if (this.timer) clearInterval(this.timer);
    await this.stopListening?.();
    await this.draining;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /**
   * Asks instance `target` to do `kind` with `body` and resolves to its answer; rejects with the owner's own error
   * (RemoteRefusal) or InstanceUnreachable when it does not take the request within the pickup time or does not
   * answer within `timeoutMs` of taking it.
   */
  async ask(target: string, kind: string, body: unknown, options: { timeoutMs: number }): Promise<unknown> {
    const { db, pollMs } = this.options;
    const pickupMs = this.options.pickupMs ?? DEFAULT_PICKUP_MS;
    const id = `req_${randomBytes(12).toString("hex")}`;
    const nowMs = this.options.now().getTime();
    await insertRequest(db, {
      id,
      target,
      kind,
      body: JSON.stringify(body),
      nowMs,
      expiresAtMs: nowMs + pickupMs,
    });
    const reached = (states: readonly string[]) => async () => {
      const row = await readRequest(db, id);
      return row && states.includes(row.state) ? row : undefined;
    };
    try {
      const taken = await waitForChange(db, WAKE_CHANNELS.instanceAnswers, {
        check: reached(["taken", "answered"]),
        timeoutMs: pickupMs,
        pollMs,
        payload: id,
      });
      if (!taken && (await withdrawRequest(db, id)))
        throw new InstanceUnreachable(
          `instance ${target}, which holds it, did not take the request within ${seconds(pickupMs)}: it is stopped, gone or stalled. If it is gone, another instance on its machine adopts its boxes and turns once its hold runs out (within about a minute); retry then`,
        );
      const answered = await waitForChange(db, WAKE_CHANNELS.instanceAnswers, {
        check: reached(["answered"]),
        timeoutMs: options.timeoutMs,
        pollMs,
        payload: id,
      });
      if (!answered?.answer)
        throw new InstanceUnreachable(
          `instance ${target} took the request but did not answer within ${seconds(options.timeoutMs)}; it may still finish it: look before retrying`,
        );
      return decode(AnswerSchema.parse(JSON.parse(answered.answer)));
    } finally {
      await deleteRequest(db, id).catch(() => undefined);
    }
  }

  private async poll(): Promise<void> {
    const { db, me, logger } = this.options;
    try {
      const nowMs = this.options.now().getTime();
      if (nowMs - this.lastSweepMs >= SWEEP_EVERY_MS) {
        this.lastSweepMs = nowMs;
        await deleteExpiredRequests(db, nowMs, LEFT_ROWS_GRACE_MS);
      }
      if (!this.draining && (await anyRequestFor(db, me.id, nowMs))) this.drain();
    } catch (error) {
      logger.warn({ err: describeThrown(error) }, "could not look for other instances' requests");
    }
  }

  /** Takes every request waiting for this instance and serves each in the background. */
  private drain(): void {
    if (!this.running) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    const { db, me, logger } = this.options;
    this.draining = (async () => {
      do {
        this.again = false;
        for (;;) {
          const request = await takeNextRequest(db, me.id, this.options.now().getTime());
          if (!request) break;
          const served: Promise<void> = this.serve(request).finally(() => this.inFlight.delete(served));
          this.inFlight.add(served);
        }
      } while (this.again && this.running);
    })()
      .catch((error: unknown) =>
        logger.warn({ err: describeThrown(error) }, "could not take another instance's request"),
      )
      .finally(() => {
        this.draining = undefined;
      });
  }

  private async serve(request: { id: string; kind: string; body: string }): Promise<void> {
    const { db, logger } = this.options;
    let answer: Answer;
    try {
      const handler = this.handlers.get(request.kind);
      if (!handler)
        throw new BatonError("internal", `this instance serves no request of kind ${request.kind}`);
      answer = { ok: true, value: (await handler(JSON.parse(request.body))) ?? null };
    } catch (error) {
      answer = { ok: false, error: encodeError(error) };
    }
    await answerRequest(db, request.id, JSON.stringify(answer)).catch((error: unknown) =>
      logger.warn(
        { request: request.id, kind: request.kind, err: describeThrown(error) },
        "could not answer another instance's request",
      ),
    );
  }
}

function encodeError(error: unknown): Extract<Answer, { ok: false }>["error"] {
  if (!isBatonError(error))
    return { code: "internal", name: "Error", message: "the instance that holds it failed; see its log" };
  const reason = (error as { reason?: unknown }).reason;
  return {
    code: error.code,
    name: error.name,
    message: error.message,
    ...(typeof reason === "string" ? { reason } : {}),
  };
}

function decode(answer: Answer): unknown {
  if (answer.ok) return answer.value;
  const { code, message, name, reason } = answer.error;
  const known = (ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : "internal";
  throw new RemoteRefusal(known, message, { name, reason });
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
