// Random credentials and ids, and the sha256 hashes the store keeps instead of the credentials themselves.
import { hash, randomBytes, randomFillSync, timingSafeEqual } from "node:crypto";

// Ids take 16 bytes each from a pool the CSPRNG fills 256 ids at a time (what randomUUID does): a call to
// randomBytes per id cost more than the store insert it names.
const ID_BYTES = 16;
const idPool = Buffer.alloc(ID_BYTES * 256);
let idOffset = idPool.length;

/** `<prefix>_<32 hex>`: 128 random bits. */
export function newId(prefix: string): string {
  if (idOffset === idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const id = idPool.toString("hex", idOffset, idOffset + ID_BYTES);
  idOffset += ID_BYTES;
  return `${prefix}_${id}`;
}
/** 32 random bytes, base64url: the turn token and the sandbox lease a sandbox presents. */
export const newCredential = (prefix: "btt" | "btl"): string =>
  `${prefix}_${randomBytes(32).toString("base64url")}`;
export const hashCredential = (credential: string): string => hash("sha256", credential, "hex");

/** Constant-time comparison of a presented credential with the expected one (both hashed to equal length). */
export function credentialMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(
    Buffer.from(hashCredential(presented), "hex"),
    Buffer.from(hashCredential(expected), "hex"),
  );
}
