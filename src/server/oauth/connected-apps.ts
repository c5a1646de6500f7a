// THROWAWAY (tokens-page branch): the oauth helper owns this file (grants of the one authorization server). This
// copy keeps the contract's signatures and knows no apps, so the tokens page runs before their work is merged;
// the page's tests inject their own list through the page's ConnectedAppsPort. At merge the lead keeps theirs.
import type { ServerDeps } from "../deps.js";

export interface ConnectedApp {
  grantId: string;
  clientName: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string;
}

export function listConnectedApps(_deps: ServerDeps, _userId: string): ConnectedApp[] {
  return [];
}

export function disconnectApp(_deps: ServerDeps, _userId: string, _grantId: string): boolean {
  return false;
}
