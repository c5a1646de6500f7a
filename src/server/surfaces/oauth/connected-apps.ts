// Connected apps (reference section 2): the user's browser sign-ins still in effect, for the tokens page, and
// Disconnect, which ends one at once (its next API call gets 401 invalid_token).

import { activeSignInsOf, endSignIn } from "../../domain/auth/sign-ins.js";
import type { OAuthDeps } from "./deps.js";

export interface ConnectedApp {
  grantId: string;
  clientName: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
}

export async function listConnectedApps(deps: OAuthDeps, userId: string): Promise<ConnectedApp[]> {
  return (await activeSignInsOf(deps.db, userId, deps.now().getTime())).map((row) => ({
    grantId: row.grantId,
    clientName: row.clientName,
    createdAt: new Date(row.createdAtMs).toISOString(),
    lastUsedAt: new Date(row.lastUsedAtMs).toISOString(),
    expiresAt: new Date(row.expiresAtMs).toISOString(),
  }));
}

/** Ends the sign-in at once: its next API call gets 401 invalid_token. Unknown or another user's: false. */
export async function disconnectApp(deps: OAuthDeps, userId: string, grantId: string): Promise<boolean> {
  return await endSignIn(deps.db, grantId, deps.now().getTime(), userId);
}
