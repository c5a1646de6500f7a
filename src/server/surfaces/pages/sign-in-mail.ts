// Sends sign-in links over the service's SMTP relay (`--smtp-url`, the same nodemailer path as capability
// e-mail). Not through the outbox: its rows keep each message's body, and a sign-in link is a credential that
// must not be left in the store. A failed send is logged without the link; the user asks for another.

import { createSmtpSender, type MailSender } from "../../domain/capability/mailer.js";
import type { PagesDeps } from "./deps.js";

export interface SignInMailer {
  configured(): boolean;
  send(message: { to: string; subject: string; text: string }): void;
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

/** Reads the settings on first use only: composing the service's routes runs none of them. */
export function createSignInMailer(deps: PagesDeps): SignInMailer {
  let sender: Promise<MailSender> | undefined;
  return {
    configured: () => Boolean(deps.capability?.smtpUrl),
    send(message) {
      const smtpUrl = deps.capability?.smtpUrl;
      if (!smtpUrl) return;
      if (!sender) {
        const made = createSmtpSender(smtpUrl, deps.capability?.smtpFrom ?? "Baton <baton@localhost>");
        sender = made;
        deps.onStop?.(async () => {
          (await made.catch(() => undefined))?.close();
        });
      }
      void sender
        .then((s) => s.send(message))
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
