// Signs a person in to the dashboard as a browser does, over plain HTTP: the sign-in form, the one-time link read
// from the loopback mail catcher, then the link page's POST, whose answer sets the session cookie. Used by the
// demo (which hands the cookie to headless Chromium) and the dashboard bench; signInLinkFor asks for a link the demo
// prints for the person running it (a one-time link, as e-mailed).

/** Quoted-printable soft line breaks and escapes, as a mail client undoes them. */
const decodeQuotedPrintable = (text) =>
  text
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));

/** The sign-in pages' browser cookie (`baton_sign_in=…`) a page sets, and the form token the page carries. */
async function readSignInPage(answer, cookie) {
  const set = answer.headers
    .getSetCookie()
    .find((line) => line.startsWith("baton_sign_in="))
    ?.split(";")[0];
  const page = await answer.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  return { cookie: set ?? cookie, csrf };
}

/** The sign-in link in the newest e-mail after `before` messages, once it arrived. */
async function linkFromMail(mail, before, email, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (mail.received.length <= before) {
    if (Date.now() > deadline) throw new Error(`no sign-in e-mail reached ${email}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const link = /(https?:\/\/\S+\/dashboard\/sign-in\/link\?token=[A-Za-z0-9_-]+)/.exec(
    decodeQuotedPrintable(mail.received.at(-1).raw),
  )?.[1];
  if (!link) throw new Error("the sign-in e-mail carries no link");
  return link;
}

/**
 * A one-time link that signs `email` in and lands on `next` (a dashboard path), for a person to open in their own
 * browser: asked as a script asks (no browser cookie), so the page asks "Sign in as <address>?" once, then goes on.
 */
export async function signInLinkFor({ url, email, mail, next = "/dashboard", timeoutMs = 10_000 }) {
  const before = mail.received.length;
  const asked = await fetch(`${url}/dashboard/sign-in`, {
    method: "POST",
    body: new URLSearchParams({ email, next }),
  });
  if (asked.status !== 200) throw new Error(`the sign-in form answered ${asked.status}`);
  return linkFromMail(mail, before, email, timeoutMs);
}

/**
 * Returns the `Cookie` header value (`baton_session=…`) of a new web session for `email`. Like a browser, it
 * keeps the sign-in pages' cookie from the form to the link, so the link is bound to it and signs in at once.
 */
export async function signInByMail({ url, email, mail, timeoutMs = 10_000 }) {
  const form = await readSignInPage(await fetch(`${url}/dashboard/sign-in?next=/dashboard`));
  if (!form.cookie || !form.csrf) throw new Error("the sign-in page carries no form for this browser");
  const before = mail.received.length;
  const asked = await fetch(`${url}/dashboard/sign-in`, {
    method: "POST",
    headers: { cookie: form.cookie },
    body: new URLSearchParams({ email, next: "/dashboard", csrf: form.csrf }),
  });
  if (asked.status !== 200) throw new Error(`the sign-in form answered ${asked.status}`);
  const deadline = Date.now() + timeoutMs;
  while (mail.received.length <= before) {
    if (Date.now() > deadline) throw new Error(`no sign-in e-mail reached ${email}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const token = /\/dashboard\/sign-in\/link\?token=([A-Za-z0-9_-]+)/.exec(
    decodeQuotedPrintable(mail.received.at(-1).raw),
  )?.[1];
  if (!token) throw new Error("the sign-in e-mail carries no link");
  const linkUrl = `${url}/dashboard/sign-in/link?token=${token}`;
  const link = await readSignInPage(await fetch(linkUrl, { headers: { cookie: form.cookie } }), form.cookie);
  if (!link.csrf) throw new Error("the sign-in link's page carries no form");
  const landed = await fetch(`${url}/dashboard/sign-in/link`, {
    method: "POST",
    headers: { cookie: link.cookie },
    body: new URLSearchParams({ token, csrf: link.csrf }),
    redirect: "manual",
  });
  const cookie = landed.headers
    .getSetCookie()
    .find((line) => line.startsWith("baton_session="))
    ?.split(";")[0];
  if (landed.status !== 303 || !cookie) throw new Error(`the sign-in link answered ${landed.status}`);
  return cookie;
}
