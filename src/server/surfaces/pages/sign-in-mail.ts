// Sends sign-in links over the service's SMTP relay (`--smtp-url`, the same nodemailer path as capability
// e-mail). Not through the outbox: its rows keep each message's body, and a sign-in link is a credential that
// must not be left in the store. A failed send is logged without the link; the user asks for another.

import { createSmtpSender, type MailSender } from "../../domain/capability/mailer.js";
import type { PagesDeps } from "./deps.js";

export interface SignInMailer {
  configured(): boolean;
  /** True when links are printed on the service's console (no --smtp-url, loopback only), not e-mailed. */
  printed(): boolean;
  send(message: { to: string; subject: string; text: string; link: string }): void;
}

export function renderSignInEmail(input: { link: string; minutes: number }): {
  subject: string;
  text: string;
} {
  return {
    subject: "Your Baton sign-in link",
    text: [
      "Someone (hopefully you) asked to sign in to Baton with this address.",
      "",
      `Open this link within ${input.minutes} minutes to sign in. It works once:`,
      input.link,
      "",
      "If you did not ask for it, ignore this e-mail: nobody can sign in without the link.",
    ].join("\n"),
  };
}

/** The console line of one sign-in link: who it signs in, and the link alone after the last space. */
export function printedLinkLine(email: string, link: string): string {
  return `sign-in link for ${email} (works once, for 15 minutes): ${link}`;
}

/** Reads the settings on first use only: composing the service's routes runs none of them. */
export function createSignInMailer(deps: PagesDeps): SignInMailer {
  let sender: Promise<MailSender> | undefined;
  return {
    configured: () => Boolean(deps.capability?.smtpUrl || deps.capability?.printSignInLink),
    printed: () => !deps.capability?.smtpUrl && Boolean(deps.capability?.printSignInLink),
    send(message) {
      const smtpUrl = deps.capability?.smtpUrl;
      if (!smtpUrl) {
        // The operator's own terminal on a loopback-only service: the link goes there, never into the log.
        deps.capability?.printSignInLink?.(printedLinkLine(message.to, message.link));
        return;
      }
      if (!sender) {
        const made = createSmtpSender(smtpUrl, deps.capability?.smtpFrom ?? "Baton <baton@localhost>");
        sender = made;
        deps.onStop?.(async () => {
          (await made.catch(() => undefined))?.close();
        });
      }
      void sender
        .then((s) => s.send({ to: message.to, subject: message.subject, text: message.text }))
        .catch((error: unknown) => {
          const e = error as { code?: string; responseCode?: number };
          deps.logger.warn(
            { code: e.code, responseCode: e.responseCode },
            "sign-in e-mail could not be sent",
          );
        });
    },
  };
}
