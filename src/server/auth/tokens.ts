// Random credentials and ids, and the sha256 hashes the store keeps instead of the credentials themselves.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const newId = (prefix: string): string => `${prefix}_${randomBytes(16).toString("hex")}`;
/** 32 random bytes, base64url: the turn token and the sandbox lease a sandbox presents. */
export const newCredential = (prefix: "btt" | "btl"): string =>
  `${prefix}_${randomBytes(32).toString("base64url")}`;
export const hashCredential = (credential: string): string =>
  createHash("sha256").update(credential, "utf8").digest("hex");

/** Constant-time comparison of a presented credential with the expected one (both hashed to equal length). */
export function credentialMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(
    Buffer.from(hashCredential(presented), "hex"),
    Buffer.from(hashCredential(expected), "hex"),
  );
}
