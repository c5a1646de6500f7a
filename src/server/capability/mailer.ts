// The outbox's delivery worker: one SMTP message per recipient (so a refused recipient never undoes the others),
// retried with back-off, nodemailer over the `--smtp-url` transport. Wakes on `kick()` and polls as a fallback.
import type { Logger } from "pino";
import type { Store } from "../store/store.js";
import { type DueDelivery, dueDeliveries, markAttemptFailed, markDelivered } from "./outbox.js";

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
}): DeliveryWorker {
  const { db, sender, logger } = options;
  const now = options.now ?? (() => new Date());
  const pollMs = options.pollMs ?? 250;
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  async function deliver(due: DueDelivery): Promise<void> {
    try {
      await sender.send({ to: due.recipient, subject: due.subject, text: due.text });
      await markDelivered(db, due, now());
    } catch (error) {
      const described = describeSmtpError(error);
      await markAttemptFailed(db, due, described, now());
      logger.warn(
        { notificationId: due.notificationId, attempt: due.attempts + 1, err: described },
        "e-mail delivery failed",
      );
    }
  }

  async function pass(): Promise<void> {
    do {
      again = false;
      const due = await dueDeliveries(db, now().getTime());
      await Promise.all(due.map(deliver));
      if (due.length > 0) again = true;
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
