// Whose token a Linear call uses, and keeping it usable: a member's own (found by their linked identity) or the
// workspace's (the app's), opened from the store for each call (a refresh elsewhere replaces it), refreshed near
// expiry, and refreshed once more when the tracker answers 401 to a token good by our clock.
import type { SecretBox } from "../../../primitives/secret-box.js";
import type { Store } from "../../../store/store.js";
import {
  type OAuthTokens,
  openConnectionTokens,
  openMemberTokensByIdentity,
  storeConnectionTokens,
  storeMemberTokens,
} from "../connections.js";
import { TrackerApiError } from "./errors.js";
import { createTokenKeeper } from "./tokens.js";

export interface Credential {
  key: string;
  open: () => Promise<OAuthTokens | null>;
  store: (tokens: OAuthTokens) => Promise<void>;
  /** The refusal when there is no token: what to do about it. */
  missing: string;
}

export function createCredentials(deps: {
  db: Store;
  box: SecretBox;
  now: () => Date;
  refresh: (refreshToken: string) => Promise<OAuthTokens>;
}) {
  const { db, box } = deps;
  const accessTokenOf = createTokenKeeper({ now: deps.now, refresh: deps.refresh });
  /**
   * Runs `call` with a usable access token of `credential`. A 401 for a token good by our clock (revoked and
   * reissued, or our clock ahead of the tracker's) gets one forced refresh and one more try.
   */
  const withToken = async <T>(credential: Credential, call: (token: string) => Promise<T>): Promise<T> => {
    const tokens = await credential.open();
    if (!tokens) throw new TrackerApiError(credential.missing, { code: "not_configured" });
    try {
      return await call(await accessTokenOf(credential.key, tokens, credential.store));
    } catch (error) {
      const latest = await credential.open();
      if (!(error instanceof TrackerApiError && error.status === 401) || !latest?.refreshToken) throw error;
      return call(await accessTokenOf(credential.key, latest, credential.store, { force: true }));
    }
  };
  const asMember = (workspaceId: string, identity: string): Credential => {
    let userId = "";
    return {
      key: `member/${workspaceId}/${identity}`,
      open: async () => {
        const found = await openMemberTokensByIdentity(db, box, workspaceId, identity);
        userId = found?.userId ?? "";
        return found?.tokens ?? null;
      },
      store: (fresh) => storeMemberTokens(db, box, workspaceId, userId, fresh),
      missing: `no tracker token for identity ${identity} in workspace ${workspaceId}; the member links their identity again at /install/tracker?workspace=${workspaceId}`,
    };
  };
  const asWorkspace = (workspaceId: string): Credential => ({
    key: `workspace/${workspaceId}`,
    open: () => openConnectionTokens(db, box, workspaceId),
    store: (fresh) => storeConnectionTokens(db, box, workspaceId, fresh),
    missing: `workspace ${workspaceId} holds no tracker token; an owner or admin connects it at /install/tracker?workspace=${workspaceId}`,
  });
  return { withToken, asMember, asWorkspace };
}
