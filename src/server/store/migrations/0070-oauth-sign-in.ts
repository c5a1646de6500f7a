// The authorization server's state (oidc-provider's models, keyed by a hash of each id), the sign-ins it grants
// (one row per grant: the 90-day and 30-days-unused rules, Disconnect), an index of access-token hashes the API
// reads on every request, web sessions and e-mailed sign-in links. Credentials are only ever stored as hashes.
import type { Migration } from "./index.js";

export const oauthSignIn: Migration = {
  version: 70,
  name: "oauth-sign-in",
  async up(m) {
    await m.exec(`
CREATE TABLE oauth_models (
  model TEXT NOT NULL,
  id_hash TEXT NOT NULL,
  payload TEXT NOT NULL,
  grant_id TEXT,
  uid TEXT,
  expires_at_ms INTEGER,
  consumed_at_ms INTEGER,
  PRIMARY KEY (model, id_hash)
);
CREATE INDEX oauth_models_grant ON oauth_models (grant_id) WHERE grant_id IS NOT NULL;
CREATE INDEX oauth_models_uid ON oauth_models (model, uid) WHERE uid IS NOT NULL;
CREATE TABLE oauth_sign_ins (
  grant_id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  client_id TEXT NOT NULL,
  client_name TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  last_used_at_ms INTEGER NOT NULL,
  ended_at_ms INTEGER
);
CREATE INDEX oauth_sign_ins_user ON oauth_sign_ins (user_id);
CREATE TABLE oauth_access_tokens (
  token_hash TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL,
  resource_kind TEXT NOT NULL,
  expires_at_ms INTEGER NOT NULL
);
CREATE INDEX oauth_access_tokens_grant ON oauth_access_tokens (grant_id);
CREATE TABLE web_sessions (
  id_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  last_seen_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL
);
CREATE TABLE sign_in_links (
  token_hash TEXT PRIMARY KEY,
  user_id TEXT NOT NULL,
  next_path TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL,
  used_at_ms INTEGER
);
CREATE INDEX sign_in_links_user ON sign_in_links (user_id, created_at_ms);
`);
  },
};
