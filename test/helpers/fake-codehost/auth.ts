// The fake code host's credentials, as GitHub checks them (docs "Authenticating as a GitHub App"): an App JWT
// signed RS256 with the App's private key (we hold the public half), `iss` the App's id, not expired, issued no
// later than now, living at most ten minutes; and installation tokens `ghs_…` it minted, refused after expiry.
import { generateKeyPairSync, randomBytes, verify } from "node:crypto";

export function makeAppKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return {
    privateKeyPem: privateKey.export({ type: "pkcs1", format: "pem" }).toString(),
    publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(),
  };
}

/** Why GitHub would refuse the JWT, or null when it is good (the messages are ours, the rules GitHub's). */
export function refuseAppJwt(jwt: string, publicKeyPem: string, appId: string, nowMs: number): string | null {
  const parts = jwt.split(".");
  if (parts.length !== 3) return "A JSON web token could not be decoded";
  const [head, body, signature] = parts as [string, string, string];
  let header: { alg?: unknown };
  let claims: { iss?: unknown; iat?: unknown; exp?: unknown };
  try {
    header = JSON.parse(Buffer.from(head, "base64url").toString("utf8"));
    claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return "A JSON web token could not be decoded";
  }
  if (header.alg !== "RS256") return "the JWT must be signed with RS256";
  const good = verify(
    "RSA-SHA256",
    Buffer.from(`${head}.${body}`),
    publicKeyPem,
    Buffer.from(signature, "base64url"),
  );
  if (!good) return "A JSON web token could not be decoded (bad signature)";
  if (String(claims.iss) !== appId) return "Integration not found ('iss' is not this App)";
  if (typeof claims.iat !== "number" || typeof claims.exp !== "number")
    return "'iat' and 'exp' must be numeric";
  const now = nowMs / 1000;
  if (claims.exp <= now) return "'Expiration time' claim ('exp') is in the past";
  if (claims.iat > now + 1)
    return "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";
  if (claims.exp - claims.iat > 600) return "'Expiration time' claim ('exp') is too far in the future";
  return null;
}

export const newInstallationToken = () => `ghs_${randomBytes(18).toString("base64url")}`;
