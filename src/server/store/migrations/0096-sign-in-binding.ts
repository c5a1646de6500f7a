// Sign-in links bound to the browser that asked for them (issue 35, A.2 and A.7): `browser_hash` is the sha256 of
// the asking browser's sign-in cookie (NULL: no browser proved itself, so the link asks "Sign in as <address>?"
// wherever it is opened); `known_browser` says the request came from a browser that had used one of the
// address's links before, whose requests are counted on their own; `used_by_browser_hash` is the browser that
// used the link, which is how the next request recognises it. Links made before this migration are unbound.
import type { Migration } from "./index.js";

export const signInBinding: Migration = {
  version: 96,
  name: "sign-in-binding",
  async up(m) {
    await m.exec(`
ALTER TABLE sign_in_links ADD COLUMN browser_hash TEXT;
ALTER TABLE sign_in_links ADD COLUMN known_browser INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sign_in_links ADD COLUMN used_by_browser_hash TEXT;
`);
  },
};
