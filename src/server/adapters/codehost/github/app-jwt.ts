// The App's JSON Web Token (docs "Generating a JSON Web Token (JWT) for a GitHub App"): RS256 over
// `{iat, exp, iss}`, iat a minute in the past against clock drift, exp nine minutes ahead (GitHub refuses more
// than ten). `appJwtClaims` is the pure part; `signAppJwt` signs with node:crypto.
import { createSign } from "node:crypto";

export const APP_JWT_BACKDATE_S = 60;
export const APP_JWT_LIFETIME_S = 9 * 60;

export interface AppJwtClaims {
  iat: number;
  exp: number;
  iss: string;
}

export function appJwtClaims(appId: string, now: Date): AppJwtClaims {
  const seconds = Math.floor(now.getTime() / 1000);
  return { iat: seconds - APP_JWT_BACKDATE_S, exp: seconds + APP_JWT_LIFETIME_S, iss: appId };
}

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

export function signAppJwt(input: { appId: string; privateKeyPem: string; now: Date }): string {
  const signing = `${part({ alg: "RS256", typ: "JWT" })}.${part(appJwtClaims(input.appId, input.now))}`;
  const signature = createSign("RSA-SHA256").update(signing).sign(input.privateKeyPem).toString("base64url");
  return `${signing}.${signature}`;
}
