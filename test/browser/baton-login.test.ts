// `baton login` by browser, through the real binary (reference rule 7; RFC 8252): `--no-browser` prints the
// address, a person opens it in Chromium on the same computer, signs in by the e-mailed link and approves; the
// client receives its token on its loopback listener, checks it, saves a sign-in, and every client command then
// acts with it. `baton logout` ends the whole sign-in. The token is printed nowhere and kept only in config.json.
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, newContext } from "../helpers/browser.js";
import { BATON_BIN, runBaton } from "../helpers/cli.js";
import { pollUntil } from "../helpers/poll.js";
import { FIXTURES, LOUD, type ServeHandle, startServe } from "../helpers/serve.js";
import { signInByEmail } from "../helpers/sign-in-by-email.js";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp.js";

describe("baton login in a browser, through the real binary", () => {
  let browser: Browser;
  let smtp: TestSmtpServer;
  let serve: ServeHandle;
  let configHome: string;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    configHome = await mkdtemp(join(tmpdir(), "baton-login-browser-"));
    [browser, serve] = await Promise.all([
      launchBrowser(),
      startServe({ seed: `${FIXTURES}/seeds/api.json`, args: ["--smtp-url", smtp.url], env: LOUD }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([browser?.close(), serve?.stop(), smtp?.close()]);
    await rm(configHome, { recursive: true, force: true });
  });

  const env = () => ({ BATON_API_URL: serve.url, XDG_CONFIG_HOME: configHome });

  /** Runs `baton login --no-browser -w ws_acme` and approves it in `page` as the owner; resolves with its output. */
  async function loginInBrowser(
    page: Page,
  ): Promise<{ output: string; exitCode: number | null; linkToken: string }> {
    const login = spawn(process.execPath, [BATON_BIN, "login", "--no-browser", "-w", "ws_acme"], {
      env: { ...process.env, ...env(), BATON_LOG_LEVEL: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    login.stdout.on("data", (chunk: Buffer) => (output += chunk));
    login.stderr.on("data", (chunk: Buffer) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => login.once("exit", resolve));
    const address = /^\s+(http\S+\/oauth\/authorize\?\S+)$/m;
    const shown = await pollUntil(
      () => output,
      (text) => address.test(text),
      { timeoutMs: 15_000 },
    );
    expect(shown).toContain("open this address in a browser on this computer");
    const linkToken = await signInByEmail(page, smtp, address.exec(shown)![1]!, "owner@acme.test");
    await page.waitForSelector('button:has-text("Approve")');
    expect(await page.textContent("main")).toMatch(/Baton CLI on/);
    await page.click('button:has-text("Approve")');
    await page.waitForSelector("text=You can close this tab");
    const exitCode = await exited;
    return { output, exitCode, linkToken };
  }

  it("--no-browser prints the address; approving in the browser signs the client in; logout ends the sign-in", async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const { output, exitCode, linkToken } = await loginInBrowser(page);
    await context.close();

    expect(exitCode, output).toBe(0);

    expect(output).toContain("Signed in to");
    expect(output).toContain("Default workspace: ws_acme (Acme).");

    const config = JSON.parse(await readFile(join(configHome, "baton", "config.json"), "utf8")) as {
      token: string;
      kind: string;
    };
    expect(config.kind).toBe("signin");
    const whoami = await runBaton(["whoami", "--json"], { env: env() });
    expect(whoami.exitCode, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout)).toMatchObject({ tokenKind: "signin", defaultWorkspace: "ws_acme" });
    const tasks = await runBaton(["tasks"], { env: env() });
    expect(tasks.exitCode, tasks.stderr).toBe(0);

    const logout = await runBaton(["logout"], { env: env() });
    expect(logout.exitCode, logout.stderr).toBe(0);
    const after = await fetch(`${serve.url}/v1/me`, { headers: { authorization: `Bearer ${config.token}` } });
    expect(after.status).toBe(401);

    // Canary: the sign-in's token and the e-mailed link's token are in no output and no service log.
    for (const secret of [config.token, linkToken]) {
      for (const text of [output, whoami.stdout, whoami.stderr, tasks.stdout, logout.stdout, logout.stderr])
        expect(text).not.toContain(secret);
      expect(serve.output()).not.toContain(secret);
    }
  }, 90_000);

  it("Disconnect on the access-tokens page ends the client's sign-in: its next command is refused and says to log in", async () => {
    const context = await newContext(browser);
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    const { output, exitCode } = await loginInBrowser(page);
    expect(exitCode, output).toBe(0);
    expect((await runBaton(["whoami"], { env: env() })).exitCode).toBe(0);

    // The same browser is signed in to the pages: the tokens page lists the client under Connected apps.
    await page.goto(`${serve.url}/dashboard/tokens`);
    const row = page.locator("tr", { hasText: "Baton CLI on" });
    await row.locator("button", { hasText: "Disconnect" }).click();
    await page.click('button:has-text("Disconnect app")');
    await page.waitForSelector("text=The app is disconnected");
    await context.close();

    const refused = await runBaton(["whoami"], { env: env() });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/baton login/);
  }, 90_000);
});
