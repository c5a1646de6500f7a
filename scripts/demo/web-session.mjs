// Signs a person in to the dashboard as a browser does, over plain HTTP: the sign-in form, the one-time link read
// from the loopback mail catcher, then the link page's POST, whose answer sets the session cookie. Used by the
// demo (which hands the cookie to headless Chromium) and the dashboard bench. The link's token is never printed.

/** Quoted-printable soft line breaks and escapes, as a mail client undoes them. */
const decodeQuotedPrintable = (text) =>
  text
    .replace(/=\r?\n/g, "")
    .replace(/=([0-9A-F]{2})/g, (_, hex) => String.fromCharCode(Number.parseInt(hex, 16)));

/** Returns the `Cookie` header value (`baton_session=…`) of a new web session for `email`. */
export async function signInByMail({ url, email, mail, timeoutMs = 10_000 }) {
  const before = mail.received.length;
  const asked = await fetch(`${url}/dashboard/sign-in`, {
    method: "POST",
    body: new URLSearchParams({ email, next: "/dashboard" }),
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
  const landed = await fetch(`${url}/dashboard/sign-in/link`, {
    method: "POST",
    body: new URLSearchParams({ token }),
    redirect: "manual",
  });
  const cookie = landed.headers.get("set-cookie")?.split(";")[0];
  if (landed.status !== 303 || !cookie) throw new Error(`the sign-in link answered ${landed.status}`);
  return cookie;
}
