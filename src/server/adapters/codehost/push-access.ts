// Who pushes as the code-host App, and with what: the store's installation records joined to the App the service
// runs with. A box learns only the installation's credential id (its placeholder); the scripted agent, which runs
// on the service's machine and not behind the proxy, gets the header with the real token. Without an App (the
// local code host) both answer nothing and pushes go where they always did.
import type { Store } from "../../store/store.js";
import type { CodehostAppApi } from "./app-api.js";
import { installationOfRepo } from "./installations.js";
import { type CodehostPushAccess, installationAuthorizationHeader } from "./push-credentials.js";

/** The App and the web base its repositories are cloned from and pushed to (`--codehost-web-url`). */
export interface CodehostPush {
  app: CodehostAppApi;
  webUrl: string;
}

export type PushAccessLookup = (workspaceId: string, repo: string) => Promise<CodehostPushAccess | undefined>;
export type GitAuthHeaderLookup = (workspaceId: string, repo: string) => Promise<string | null>;

/** The App and web base when both are configured; otherwise undefined (the local code host). */
export function codehostPushOf(
  app: CodehostAppApi | undefined,
  settings: { webUrl: string } | undefined,
): CodehostPush | undefined {
  return app && settings ? { app, webUrl: settings.webUrl } : undefined;
}

/** The installation (credential id) and web base for a repository an unsuspended installation gives. */
export function createPushAccessLookup(db: Store, push: CodehostPush | undefined): PushAccessLookup {
  return async (workspaceId, repo) => {
    if (!push) return undefined;
    const installation = await installationOfRepo(db, workspaceId, repo);
    if (!installation || installation.suspended) return undefined;
    return { credentialId: installation.credentialId, webUrl: push.webUrl };
  };
}

/** The Authorization header git sends as the installation (the real token: service-side pushes only). */
export function createGitAuthHeader(db: Store, push: CodehostPush | undefined): GitAuthHeaderLookup {
  return async (workspaceId, repo) => {
    if (!push) return null;
    const installation = await installationOfRepo(db, workspaceId, repo);
    if (!installation || installation.suspended) return null;
    const { token } = await push.app.installationToken(installation.installationId);
    return installationAuthorizationHeader(token);
  };
}
