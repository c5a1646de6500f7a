// Issue 37 A3: a laptop without a mail server reaches its dashboard. Without --smtp-url, a `baton serve` whose
// every listener is on loopback prints each sign-in link on its own stderr line (and the sign-in page says so);
// off loopback sign-in by e-mail stays refused (503), in words without Markdown backticks. A real `baton serve`,
// real HTTP requests as a browser sends them (its cookie and form token), the link read from the service's stderr.
import { afterEach, describe, expect, it } from "vitest";
import { pollUntil } from "../../helpers/poll.js";
import { FIXTURES, killLeftoverServes, type ServeHandle, startServe } from "../../helpers/serve.js";

const SEED = `${FIXTURES}/seeds/api.json`;
const EMAIL = "owner@acme.test";
let open: ServeHandle | undefined;
afterEach(async () => {
  await open?.stop();
  open = undefined;
  await killLeftoverServes();
});

/** The sign-in pages' browser cookie a page sets (or the one sent), and the form token the page carries. */
async function readPage(
  answer: Response,
  cookie?: string,
): Promise<{ cookie?: string; csrf?: string; text: string }> {
  const set = answer.headers
    .getSetCookie()
    .find((line) => line.startsWith("baton_sign_in="))
    ?.split(";")[0];
  const text = await answer.text();
  return { cookie: set ?? cookie, csrf: /name="csrf" value="([^"]+)"/.exec(text)?.[1], text };
}

describe("sign-in links on the console when there is no mail server and every listener is on loopback", () => {
  it("the page says so; the link printed on stderr signs in and opens the dashboard", async () => {
    open = await startServe({ seed: SEED });
    const url = open.url;
    const form = await readPage(await fetch(`${url}/dashboard/sign-in?next=/dashboard`));
    expect(form.text).toContain("printed on its console");
    expect(form.cookie).toBeDefined();
    const asked = await fetch(`${url}/dashboard/sign-in`, {
      method: "POST",
      headers: { cookie: form.cookie!, origin: url },
      body: new URLSearchParams({ email: EMAIL, next: "/dashboard", csrf: form.csrf! }),
    });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain("printed on the console of baton serve");

    const line = await pollUntil(
      () =>
        open!
          .stderr()
          .split("\n")
          .find((l) => l.startsWith(`baton serve: sign-in link for ${EMAIL}`)),
      (found) => found !== undefined,
      { timeoutMs: 10_000 },
    );
    // One line per link, the link last.
    const link = line!.split(" ").at(-1)!;
    expect(link).toMatch(new RegExp(`^${url}/dashboard/sign-in/link\\?token=[A-Za-z0-9_-]+$`));

    const landing = await readPage(await fetch(link, { headers: { cookie: form.cookie! } }), form.cookie);
    const token = new URL(link).searchParams.get("token")!;
    const landed = await fetch(`${url}/dashboard/sign-in/link`, {
      method: "POST",
      headers: { cookie: landing.cookie!, origin: url },
      body: new URLSearchParams({ token, csrf: landing.csrf! }),
      redirect: "manual",
    });
    expect(landed.status).toBe(303);
    const session = landed.headers
      .getSetCookie()
      .find((l) => l.startsWith("baton_session="))
      ?.split(";")[0];
    expect(session).toBeDefined();
    const dashboard = await fetch(`${url}/dashboard`, { headers: { cookie: session! }, redirect: "follow" });
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain(EMAIL);
  });

  it("an address that is no user's prints nothing (the page answers the same)", async () => {
    open = await startServe({ seed: SEED });
    const asked = await fetch(`${open.url}/dashboard/sign-in`, {
      method: "POST",
      body: new URLSearchParams({ email: "nobody@nowhere.test", next: "/dashboard" }),
    });
    expect(asked.status).toBe(200);
    await new Promise((r) => setTimeout(r, 500));
    expect(open.stderr()).not.toContain("sign-in link for");
  });
});

describe("off loopback without --smtp-url, sign-in by e-mail stays refused", () => {
  it("--host 0.0.0.0: 503, the fix in plain words, no Markdown backticks, nothing printed", async () => {
    open = await startServe({ args: ["--host", "0.0.0.0"] });
    const url = open.url.replace("0.0.0.0", "127.0.0.1");
    const page = await fetch(`${url}/dashboard/sign-in`);
    expect(page.status).toBe(503);
    const text = await page.text();
    expect(text).toContain("Sign-in by e-mail is not configured");
    expect(text).toContain("--smtp-url smtp://host:port");
    expect(text).not.toContain("`");
    const asked = await fetch(`${url}/dashboard/sign-in`, {
      method: "POST",
      body: new URLSearchParams({ email: EMAIL, next: "/dashboard" }),
    });
    expect(asked.status).toBe(503);
    expect(open.stderr()).not.toContain("sign-in link for");
  });
});
