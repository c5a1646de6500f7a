// Keeps a sealed OAuth token usable: one near its expiry is refreshed at the token endpoint first and stored
// again (sealed), and two calls that need the same refresh share one (Linear rotates refresh tokens, so a second
// refresh with the old one would fail).
import type { OAuthTokens } from "../connections.js";

/** Refresh a token this close to its expiry, so it cannot lapse between the check and the call. */
export const REFRESH_MARGIN_MS = 5 * 60 * 1000;

export function needsRefresh(tokens: OAuthTokens, nowMs: number, marginMs = REFRESH_MARGIN_MS): boolean {
  return (
    tokens.refreshToken !== null && tokens.expiresAtMs !== null && tokens.expiresAtMs - nowMs <= marginMs
  );
}

export function createTokenKeeper(deps: {
  now: () => Date;
  refresh: (refreshToken: string) => Promise<OAuthTokens>;
}) {
  const inFlight = new Map<string, Promise<OAuthTokens>>();
  /**
   * `key` names whose token it is; `store` keeps the refreshed pair; `force` refreshes a token the tracker
   * refused although it had not expired by our clock. Returns the access token to use.
   */
  return async function accessTokenOf(
    key: string,
    tokens: OAuthTokens,
    store: (tokens: OAuthTokens) => Promise<void>,
    options: { force?: boolean } = {},
  ): Promise<string> {
    const refreshable = options.force
      ? tokens.refreshToken !== null
      : needsRefresh(tokens, deps.now().getTime());
    if (!refreshable) return tokens.accessToken;
    let pending = inFlight.get(key);
    if (!pending) {
      pending = deps
        .refresh(tokens.refreshToken!)
        .then(async (fresh) => {
          // A token endpoint that does not rotate leaves the old refresh token good.
          const kept = { ...fresh, refreshToken: fresh.refreshToken ?? tokens.refreshToken };
          await store(kept);
          return kept;
        })
        .finally(() => inFlight.delete(key));
      inFlight.set(key, pending);
    }
    return (await pending).accessToken;
  };
}
