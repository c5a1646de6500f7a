// A person signing in to the service's pages in Chromium: the e-mail form, the one-time link read from the
// loopback SMTP server, and the link page's button (a POST, so a mail scanner fetching the link cannot use it).
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { pollUntil } from "./poll.js";
import type { TestSmtpServer } from "./smtp.js";

const LINK = /https?:\/\/\S+\/dashboard\/sign-in\/link\?token=[A-Za-z0-9_-]+/;

/** Opens `url` (anything that needs a signed-in person), signs in as `email`, and returns the link's token. */
export async function signInByEmail(
  page: Page,
  smtp: TestSmtpServer,
  url: string,
  email: string,
): Promise<string> {
  await page.goto(url);
  await page.fill("#email", email);
  const before = smtp.received.length;
  await page.click("button[type=submit]");
  await page.waitForSelector("text=Check your e-mail");
  const mails = await pollUntil(
    () => smtp.received,
    (m) => m.length > before,
    { timeoutMs: 10_000 },
  );
  const link = LINK.exec(mails.at(-1)!.decoded)?.[0];
  expect(link, "the sign-in e-mail carries a link").toBeDefined();
  await page.goto(link!);
  await page.click("button[type=submit]");
  return new URL(link!).searchParams.get("token")!;
}
