// The outbox's delivery worker: one SMTP message per recipient (so a refused recipient never undoes the others),
// retried with back-off, nodemailer over the `--smtp-url` transport. Wakes on `kick()` and polls as a fallback.
// Each message is claimed before it is sent and its lease renewed while the SMTP exchange runs, so instances
// sharing the store never send one twice; a few lanes send in parallel.
import type { Logger } from "pino";
import { DEFAULT_QUEUE_LEASE_MS, whileHeld } from "../../store/hold-claim.js";
import type { Store } from "../../store/store.js";
import {
  anyDeliveryClaimable,
  claimDueDelivery,
  type DueDelivery,
  markAttemptFailed,
  markDelivered,
} from "./outbox-claims.js";

/** How many messages one instance sends at once. */
const SEND_LANES = 4;

export interface MailSender {
  send(message: { to: string; subject: string; text: string }): Promise<void>;
  close(): void;
}

export async function createSmtpSender(smtpUrl: string, from: string): Promise<MailSender> {
  const nodemailer = await import("nodemailer");
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    async send(message) {
      await transport.sendMail({ from, ...message, signal: AbortSignal.timeout(30_000) });
    },
    close: () => transport.close(),
  };
}

export interface DeliveryWorker {
  kick(): void;
  /** Delivers everything due now; resolves when this pass is done. Used by tests and `stop`. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

/** SMTP errors carry the server's reply; keep the code and a short line, never the message body. */
function describeSmtpError(error: unknown): string {
  if (!(error instanceof Error)) return "delivery failed";
  const e = error as Error & { responseCode?: number; code?: string };
  return [e.code, e.responseCode, e.message.split("\n")[0]].filter(Boolean).join(" ").slice(0, 200);
}

export function startDeliveryWorker(options: {
  db: Store;
  sender: MailSender;
  logger: Logger;
  now?: () => Date;
  pollMs?: number;
  /** Who claims messages: this instance's id (InstanceIdentity.id). */
  owner: string;
  /** How long a claim lasts unless renewed; default DEFAULT_QUEUE_LEASE_MS. */
  leaseMs?: number | undefined;
}): DeliveryWorker {
  const { db, sender, logger, owner } = options;
  const leaseMs = options.leaseMs ?? DEFAULT_QUEUE_LEASE_MS;
  const now = options.now ?? (() => new Date());
  const pollMs = options.pollMs ?? 250;
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  async function deliver(due: DueDelivery): Promise<void> {
    try {
      await sender.send({ to: due.recipient, subject: due.subject, text: due.text });
      if (!(await markDelivered(db, due, now())))
        logger.warn(
          { notificationId: due.notificationId },
          "an e-mail's claim was taken over before it was recorded",
        );
    } catch (error) {
      const described = describeSmtpError(error);
      await markAttemptFailed(db, due, described, now());
      logger.warn(
        { notificationId: due.notificationId, attempt: due.attempts + 1, err: described },
        "e-mail delivery failed",
      );
    }
  }

  /** Claims and sends due messages one after another until none is left; true when it sent any. */
  async function lane(): Promise<boolean> {
    let sent = false;
    while (!stopped) {
      const due = await claimDueDelivery(db, { owner, leaseMs, nowMs: now().getTime() });
      if (!due) break;
      sent = true;
      const renewal = {
        leaseMs,
        now: () => now().getTime(),
        onError: (error: unknown) => logger.warn({ err: String(error) }, "could not renew an e-mail's lease"),
      };
      await whileHeld(db, { table: "notification_deliveries", id: due.id, owner }, renewal, () =>
        deliver(due),
      );
    }
    return sent;
  }

  async function pass(): Promise<void> {
    do {
      again = false;
      if (!(await anyDeliveryClaimable(db, now().getTime()))) break;
      const lanes = await Promise.all(Array.from({ length: SEND_LANES }, lane));
      if (lanes.some(Boolean)) again = true;
    } while (again && !stopped);
  }

  function drain(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = pass().finally(() => {
      running = null;
    });
    return running;
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      void drain().finally(schedule);
    }, pollMs);
    timer.unref();
  }
  schedule();

  return {
    kick: () => {
      if (!stopped) void drain();
    },
    drain,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      if (running) await running;
      sender.close();
    },
  };
}
