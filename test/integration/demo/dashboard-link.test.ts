// Issue 37 A3: the demo prints the dashboard link signed in. scripts/demo/web-session.mjs's signInLinkFor asks a
// real `baton serve` (the demo's flags: --smtp-url to the demo's own loopback mail catcher) for a one-time link
// landing on a dashboard page; opened as a person's browser opens it (no cookie from the form), it asks
// "Sign in as …?" once and then lands on that page signed in. The whole demo is not run here (minutes of builds).
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error plain ES module script without types
import { startMailCatcher } from "../../../scripts/demo/mail-catcher.mjs";
// @ts-expect-error plain ES module script without types
import { signInLinkFor } from "../../../scripts/demo/web-session.mjs";
import { FIXTURES, killLeftoverServes, type ServeHandle, startServe } from "../../helpers/serve.js";

let open: ServeHandle | undefined;
let mail: { url: string; close(): Promise<void> } | undefined;
afterEach(async () => {
  await open?.stop();
  await mail?.close();
  open = undefined;
  await killLeftoverServes();
});

describe("the demo's signed-in dashboard link", () => {
  it("lands on the page it names, signed in as the owner, after one confirmation", async () => {
    mail = await startMailCatcher();
    open = await startServe({ seed: `${FIXTURES}/seeds/api.json`, args: ["--smtp-url", mail!.url] });
    const url = open.url;
    const next = "/dashboard/workspaces/ws_acme/tasks";
    const link: string = await signInLinkFor({ url, email: "owner@acme.test", mail, next });
    expect(link).toMatch(new RegExp(`^${url}/dashboard/sign-in/link\\?token=[A-Za-z0-9_-]+$`));

    // A browser of its own: the link's page sets its cookie and asks to confirm the address.
    const page = await fetch(link);
    const text = await page.text();
    expect(text).toContain("owner@acme.test");
    const cookie = page.headers
      .getSetCookie()
      .find((line) => line.startsWith("baton_sign_in="))
      ?.split(";")[0];
    expect(text).toContain("Sign in as owner@acme.test?");
    // The form as the browser sends it: every hidden field (token, form token, the confirmation).
    const fields = Object.fromEntries(
      [...text.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
    );
    expect(cookie && fields.csrf && fields.token).toBeTruthy();
    const landed = await fetch(`${url}/dashboard/sign-in/link`, {
      method: "POST",
      headers: { cookie: cookie!, origin: url },
      body: new URLSearchParams(fields),
      redirect: "manual",
    });
    expect(landed.status).toBe(303);
    expect(landed.headers.get("location")).toContain(next);
    const session = landed.headers
      .getSetCookie()
      .find((line) => line.startsWith("baton_session="))
      ?.split(";")[0];
    const tasks = await fetch(new URL(next, url), { headers: { cookie: session! } });
    expect(tasks.status).toBe(200);
    expect(await tasks.text()).toContain("owner@acme.test");
  });
});
