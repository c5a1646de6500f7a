// A secret value as the seed ledger remembers it: a salted scrypt fingerprint, so the ledger can tell whether
// the seed's value (or the stored one) is still the value the seed last set without keeping the value, and a
// copy of the database does not make guessing a weak value cheap.
import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";

const PREFIX = "scrypt1";

export function fingerprintSecret(value: string, salt: Buffer = randomBytes(16)): string {
  return `${PREFIX}$${salt.toString("base64")}$${scryptSync(value, salt, 32).toString("base64")}`;
}

/** Whether `value` has `fingerprint`; false for anything that is not a fingerprint of ours. */
export function matchesFingerprint(value: string, fingerprint: unknown): boolean {
  if (typeof fingerprint !== "string") return false;
  const [prefix, salt, hash, ...rest] = fingerprint.split("$");
  if (prefix !== PREFIX || !salt || !hash || rest.length > 0) return false;
  const expected = Buffer.from(hash, "base64");
  if (expected.length !== 32) return false;
  return timingSafeEqual(scryptSync(value, Buffer.from(salt, "base64"), 32), expected);
}
