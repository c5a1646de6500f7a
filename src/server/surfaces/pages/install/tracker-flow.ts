// What the tracker's install flow decides without I/O: whether the caller connects the workspace (an owner or
// admin, the workspace's tracker not yet connected; the token acts as the app) or links their own identity (any
// member, once it is connected), and how the purpose rides through the platform inside the sealed PKCE verifier
// (the state row keeps only the verifier, and the callback must not guess the purpose from the workspace's state
// at return time: an app token linked as a member's identity would act as the app in their name).
import type { AuthorizationPurpose } from "../../../adapters/tracker/linear/index.js";

/** Connect when the workspace holds no tracker token yet; otherwise link the caller's identity. */
export function choosePurpose(input: { connected: boolean }): AuthorizationPurpose {
  return input.connected ? "link" : "connect";
}

/** Who may: connecting needs an owner or admin; linking, any member. */
export const roleNeeded = (purpose: AuthorizationPurpose): "admin" | "member" =>
  purpose === "connect" ? "admin" : "member";

/** `<purpose>-<random>`: still a PKCE verifier (unreserved characters, 43 to 128 of them). */
export const verifierFor = (purpose: AuthorizationPurpose, random: string): string => `${purpose}-${random}`;

export function purposeOf(verifier: string): AuthorizationPurpose | undefined {
  const dash = verifier.indexOf("-");
  if (dash < 0) return undefined;
  const prefix = verifier.slice(0, dash);
  return prefix === "connect" || prefix === "link" ? prefix : undefined;
}
