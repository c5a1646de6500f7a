// The authorization server's own browser session (oidc-provider's `_session` cookie, stored as the "Session" model
// under its id's hash): signing out of the dashboard ends it too (issue 35 A.6), so the browser keeps nothing
// that remembers who approved which app.
import { hashCredential } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";

/** oidc-provider's session cookie (its default `cookies.names.session`). */
export const PROVIDER_SESSION_COOKIE = "_session";

export async function endProviderSession(db: Store, sessionId: string): Promise<void> {
  await db.run("DELETE FROM oauth_models WHERE model = ? AND id_hash = ?", [
    "Session",
    hashCredential(sessionId),
  ]);
}
