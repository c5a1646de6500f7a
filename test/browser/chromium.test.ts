// The browser tests' ground: Debian's Chromium starts through playwright-core and renders a page from a real
// socket (a test that fails here explains every other browser test's failure at once).
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, newContext } from "../helpers/browser.js";

describe("headless Chromium", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("loads a page from a loopback server and reads its text", async () => {
    const server = createServer((_req, res) => {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end("<!doctype html><title>t</title><p id=x>hello from loopback</p>");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const context = await newContext(browser);
      const page = await context.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(await page.textContent("#x")).toBe("hello from loopback");
      await context.close();
    } finally {
      server.close();
    }
  });
});
