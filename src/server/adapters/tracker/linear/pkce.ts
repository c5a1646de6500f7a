// PKCE (RFC 7636) for the tracker's authorization-code flow: a random verifier kept (sealed) with the install
// state, and its S256 challenge sent on the authorization URL.
import { createHash, randomBytes } from "node:crypto";

export const PKCE_METHOD = "S256";

/** 32 random bytes, base64url: 43 characters of the unreserved set, as RFC 7636 section 4.1 asks. */
export function createPkceVerifier(): string {
  return randomBytes(32).toString("base64url");
}

/** BASE64URL(SHA256(ASCII(verifier))), RFC 7636 section 4.2. */
export function challengeOf(verifier: string): string {
  return createHash("sha256").update(verifier, "ascii").digest("base64url");
}
