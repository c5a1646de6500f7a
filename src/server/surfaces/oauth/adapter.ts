// oidc-provider's storage adapter over the store's `oauth_models` table. Every id is stored as its sha256, never
// raw, and the raw id (`jti`) is stripped from the stored payload and put back on read: a copy of the database
// holds no usable access token, code, refresh token, session or interaction id. Issued access tokens are also
// indexed for the API (sign-ins.ts), so an API request never needs a provider round trip.
import type { Adapter, AdapterPayload } from "oidc-provider";
import { forgetAccessToken } from "../../domain/auth/sign-ins.js";
import type { SecretBox } from "../../primitives/secret-box.js";
import { hashCredential } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";
import { UNUSED_CLIENT_LIFETIME_MS } from "./registration-limits.js";

export interface AdapterHooks {
  /** Called after an AccessToken is stored, with its raw id (the token) and payload. */
  onAccessToken(token: string, payload: AdapterPayload): void | Promise<void>;
  /** Whether a refresh token of this grant may still be used: its sign-in is still in effect. A refresh token whose
   * sign-in has ended, expired or gone unused is read as absent (the client gets `invalid_grant`). */
  mayRefresh(grantId: string): Promise<boolean>;
  /** A refresh token was presented twice at once and this request lost the race to consume it: a reuse (RFC 9700
   * section 4.14.2). Ends the grant's sign-in and returns the error the provider answers with (`invalid_grant`). */
  refreshTokenReused(grantId: string | null): Promise<Error>;
  /** Seals a web client's client_secret at rest (it must be compared in the clear, so it cannot be hashed). */
  secretBox: SecretBox;
}

const clientSecretScope = (clientId: string) => `oauth-client/${clientId}`;

function openQuietly(box: SecretBox, scope: string, sealed: string): string | undefined {
  try {
    return box.open(scope, sealed);
  } catch {
    return undefined;
  }
}

/** A registered client expires unless a grant clears it first (registration-limits.ts); other models as asked. */
function expiresAtOf(model: string, expiresIn: number | undefined): number | null {
  if (expiresIn) return Date.now() + expiresIn * 1000;
  return model === "Client" ? Date.now() + UNUSED_CLIENT_LIFETIME_MS : null;
}

type Row = { payload: string; expires_at_ms: number | null; consumed_at_ms: number | null };

export function createStoreAdapter(db: Store, hooks: AdapterHooks): new (model: string) => Adapter {
  const read = (row: Row | undefined, id: string, model: string): AdapterPayload | undefined => {
    if (!row) return undefined;
    // The provider checks expiry itself too; rows past it are as good as gone.
    if (row.expires_at_ms !== null && row.expires_at_ms <= Date.now()) return undefined;
    const { jti: stripped, ...payload } = JSON.parse(row.payload) as AdapterPayload;
    const sealed = model === "Client" ? payload.client_secret : undefined;
    const secret =
      typeof sealed === "string" ? openQuietly(hooks.secretBox, clientSecretScope(id), sealed) : null;
    // A secret sealed under another key (the service restarted without --secret-key-file): the client must register again.
    if (secret === undefined) return undefined;
    return {
      ...payload,
      ...(secret !== null ? { client_secret: secret } : {}),
      // Only models whose payload carried a jti get it back, and only when read by id.
      ...(stripped !== undefined && id ? { jti: id } : {}),
      ...(row.consumed_at_ms !== null ? { consumed: Math.floor(row.consumed_at_ms / 1000) } : {}),
    };
  };

  return class StoreAdapter implements Adapter {
    constructor(private readonly model: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const { jti: _raw, ...kept } = payload;
      const secret = this.model === "Client" ? payload.client_secret : undefined;
      const stored = {
        ...kept,
        ...(payload.jti !== undefined ? { jti: null } : {}),
        ...(typeof secret === "string"
          ? { client_secret: hooks.secretBox.seal(clientSecretScope(id), secret) }
          : {}),
      };
      const grantId = this.model === "Grant" ? id : (payload.grantId ?? null);
      await db.run(
        `INSERT INTO oauth_models (model, id_hash, payload, grant_id, uid, expires_at_ms) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (model, id_hash) DO UPDATE SET payload = excluded.payload, grant_id = excluded.grant_id,
           uid = excluded.uid, expires_at_ms = excluded.expires_at_ms`,
        [
          this.model,
          hashCredential(id),
          JSON.stringify(stored),
          grantId,
          payload.uid ?? null,
          expiresAtOf(this.model, expiresIn),
        ],
      );
      // A client's first grant is its completed authorization: from then on it lasts as long as its sign-ins.
      if (this.model === "Grant" && typeof payload.clientId === "string")
        await db.run(
          "UPDATE oauth_models SET expires_at_ms = NULL WHERE model = 'Client' AND id_hash = ? AND expires_at_ms IS NOT NULL",
          [hashCredential(payload.clientId)],
        );
      if (this.model === "AccessToken") await hooks.onAccessToken(id, payload);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const row = (await db.get(
        "SELECT payload, expires_at_ms, consumed_at_ms FROM oauth_models WHERE model = ? AND id_hash = ?",
        [this.model, hashCredential(id)],
      )) as Row | undefined;
      const found = read(row, id, this.model);
      if (found && this.model === "RefreshToken" && !(await hooks.mayRefresh(String(found.grantId ?? ""))))
        return undefined;
      return found;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      // Only sessions are looked up by uid; the uid is not a bearer credential, the session id (cookie) is, and a
      // session's payload never held it raw. The provider re-reads the session by id after this.
      const row = (await db.get(
        "SELECT payload, expires_at_ms, consumed_at_ms FROM oauth_models WHERE model = ? AND uid = ?",
        [this.model, uid],
      )) as Row | undefined;
      return read(row, "", this.model);
    }

    async findByUserCode(): Promise<undefined> {
      // The device flow is off: there are no user codes.
      return undefined;
    }

    async consume(id: string): Promise<void> {
      const consumed = await db.run(
        "UPDATE oauth_models SET consumed_at_ms = ? WHERE model = ? AND id_hash = ? AND consumed_at_ms IS NULL",
        [Date.now(), this.model, hashCredential(id)],
      );
      // The provider checks "already used" before it consumes; two refreshes with one token at once both pass that
      // check. Only the one whose update took the row goes on: the other is a reuse, and the chain ends.
      if (consumed.changes === 0 && this.model === "RefreshToken") {
        const row = (await db.get("SELECT grant_id FROM oauth_models WHERE model = ? AND id_hash = ?", [
          this.model,
          hashCredential(id),
        ])) as { grant_id: string | null } | undefined;
        throw await hooks.refreshTokenReused(row?.grant_id ?? null);
      }
    }

    async destroy(id: string): Promise<void> {
      await db.run("DELETE FROM oauth_models WHERE model = ? AND id_hash = ?", [
        this.model,
        hashCredential(id),
      ]);
      if (this.model === "AccessToken") await forgetAccessToken(db, id);
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await db.run("DELETE FROM oauth_models WHERE model = ? AND grant_id = ?", [this.model, grantId]);
      if (this.model === "AccessToken")
        await db.run("DELETE FROM oauth_access_tokens WHERE grant_id = ?", [grantId]);
    }
  };
}
