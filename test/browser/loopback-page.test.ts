// The page `baton login`'s loopback listener shows in the browser after a sign-in (issue 37 A.9: it was an
// unstyled line of text), in headless Chromium: it has the service pages' look (their type and column), a heading
// that says the outcome, and its one style block is allowed by the page's own policy (no console refusal). The
// listener is the client's real one on a real loopback socket; the caller's verdict is given, as no sign-in runs.
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CallbackPage, listenOnLoopback } from "../../src/client/loopback-callback.js";
import { launchBrowser, newContext } from "../helpers/browser.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

describe("the loopback sign-in page", () => {
  it.each([
    ["approved", "Signed in", "You can close this tab and return to the terminal."],
    ["denied", "Sign-in denied", "run baton login to try again"],
  ] as const)("%s: styled like the service's pages, headed %s", async (verdict, heading, text) => {
    const listener = await listenOnLoopback((): CallbackPage => verdict);
    const context = await newContext(browser, { width: 360, height: 640 });
    const refusals: string[] = [];
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(5_000);
      page.on("console", (message) => {
        if (message.text().includes("Content Security Policy")) refusals.push(message.text());
      });
      await page.goto(`${listener.redirectUri}?code=x&state=y`);
      expect(await page.textContent("h1")).toBe(heading);
      expect(await page.textContent("main")).toContain(text);
      const look = await page.evaluate(
        `(() => { const s = getComputedStyle(document.querySelector("main")); return { font: getComputedStyle(document.body).fontFamily, maxWidth: s.maxWidth }; })()`,
      );
      expect(look).toEqual({ font: expect.stringContaining("system-ui"), maxWidth: "768px" });
      expect(refusals).toEqual([]);
    } finally {
      await context.close();
      await listener.close();
    }
  });
});
