// The demo's last step: the task `baton start` started, opened at its `url` in headless Chromium (Debian's
// chromium through playwright-core, the flags of test/helpers/browser.ts) by a person signed in through the
// e-mailed link; prints the page's title and how many conversation entries it shows.
import { signInByMail } from "./web-session.mjs";

const CHROMIUM = process.env.BATON_CHROMIUM ?? "/usr/bin/chromium";
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
];

export async function openTaskPage({ url, taskUrl, email, mail }) {
  const { chromium } = await import("playwright-core");
  const cookie = await signInByMail({ url, email, mail });
  const [name, value] = cookie.split("=");
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
  try {
    const context = await browser.newContext();
    await context.addCookies([{ name, value, url, httpOnly: true, sameSite: "Lax" }]);
    const page = await context.newPage();
    const answer = await page.goto(taskUrl);
    if (answer?.status() !== 200) throw new Error(`the task page answered ${answer?.status()}`);
    return { title: await page.title(), entries: await page.locator("ol.conversation > li").count() };
  } finally {
    await browser.close();
  }
}
