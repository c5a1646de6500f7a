// RFC 8414 authorization server metadata as issued (issue 35 B.11, B.12): oidc-provider describes an OpenID
// provider (the `openid` scope, ID token algorithms, claims, subject types, a JWKS for signing them); this
// service issues OAuth access and refresh tokens for one scope and signs nothing, so the metadata says only
// that. Pure: the provider's discovery answer goes in, ours comes out.
import { API_SCOPE, GRANT_TYPES } from "./wire.js";

/** Members that describe OpenID Connect (ID tokens, claims, user info) or signed artefacts this server never issues. */
const NOT_ISSUED = [
  "claims_supported",
  "claims_parameter_supported",
  "id_token_signing_alg_values_supported",
  "id_token_encryption_alg_values_supported",
  "id_token_encryption_enc_values_supported",
  "subject_types_supported",
  "userinfo_endpoint",
  "end_session_endpoint",
  "jwks_uri",
] as const;

export function describeAuthorizationServer(library: Record<string, unknown>): Record<string, unknown> {
  const described: Record<string, unknown> = { ...library };
  for (const member of NOT_ISSUED) delete described[member];
  described.scopes_supported = [API_SCOPE];
  described.grant_types_supported = [...GRANT_TYPES];
  return described;
}
