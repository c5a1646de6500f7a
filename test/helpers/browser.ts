// Headless Chromium for the browser tests: Debian's `chromium` (scripts/setup-machine.sh installs it) driven by
// playwright-core, never a downloaded browser. One browser per test file; each test takes a fresh context
// (its own cookies), so signed-in state never leaks from one test into the next.
import { type Browser, type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM_PATH = process.env.BATON_CHROMIUM ?? "/usr/bin/chromium";

const FLAGS = [
  "--headless",
  // Tests run as root in CI, where Chromium refuses its own sandbox.
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: FLAGS, headless: true });
}

/** A fresh context: no cookies, a desktop size unless the test asks for another (the pages must read at 360 px). */
export function newContext(
  browser: Browser,
  options: { width?: number; height?: number; timezoneId?: string } = {},
): Promise<BrowserContext> {
  return browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
    ...(options.timezoneId ? { timezoneId: options.timezoneId } : {}),
  });
}
