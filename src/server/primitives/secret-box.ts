// Secret values at rest (DESIGN "Secret values at rest"): AES-256-GCM under the operator's key, bound to the
// secret's repository and name as associated data, so a sealed value copied onto another secret does not open. The store keeps only
// what `seal` returns; only the proxy's internal route calls `open`.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

export const SEALED_PREFIX = "bsk1.";
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SecretBox {
  /** `scope` names the secret: `secretScope(repositoryId, name)`. */
  seal(scope: string, value: string): string;
  /** Throws when the text was not sealed by this key for this scope. */
  open(scope: string, sealed: string): string;
}

/** What a sealed value is bound to: its repository and name (both fixed for the life of a secret). */
export const secretScope = (repositoryId: string, name: string): string => `${repositoryId}/${name}`;

export function isSealed(text: string): boolean {
  return text.startsWith(SEALED_PREFIX);
}

const aad = (scope: string) => Buffer.from(`baton-secret:${scope}`, "utf8");

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) throw new Error(`the secret key must be ${KEY_BYTES} bytes`);
  return {
    seal(scope, value) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(aad(scope));
      const body = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
      return `${SEALED_PREFIX}${iv.toString("base64url")}.${body.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}`;
    },
    open(scope, sealed) {
      const parts = sealed.startsWith(SEALED_PREFIX) ? sealed.slice(SEALED_PREFIX.length).split(".") : [];
      if (parts.length !== 3) throw new Error(`secret ${scope} is not sealed`);
      const [iv, body, tag] = parts.map((p) => Buffer.from(p, "base64url")) as [Buffer, Buffer, Buffer];
      const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(scope));
      decipher.setAuthTag(tag);
      try {
        return Buffer.concat([decipher.update(body), decipher.final()]).toString("utf8");
      } catch (error) {
        throw new Error(`secret ${scope} does not open with this key (was --secret-key-file changed?)`, {
          cause: error,
        });
      }
    },
  };
}

/** A key that lives only as long as the process (an in-memory store, tests). */
export function ephemeralSecretBox(): SecretBox {
  return createSecretBox(randomBytes(KEY_BYTES));
}

export const SECRET_KEY_BYTES = KEY_BYTES;
