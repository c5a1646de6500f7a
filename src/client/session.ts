// What every signed-in client command starts with: the saved sign-in (or "run baton login"), the address to
// use, an API client, and the workspace the command acts in. Keeps lastUsedAt current, at most once an hour, and a
// browser sign-in's access token live: renewed before the command starts when it is about to run out, and once
// more if the service refuses it midway (a `baton follow` outlasts an hour).
import { BatonError, UsageError } from "../errors.js";
import type { Log } from "../log-level.js";
import { type ApiClient, createApiClient } from "./api-client.js";
import { resolveApiUrl } from "./api-url.js";
import { deleteConfig, locateConfig, readSavedConfig, saveConfig } from "./config.js";
import type { ConfigLocation } from "./config-path.js";
import type { SavedConfig } from "./config-schema.js";
import { renewSavedSignIn } from "./refresh-sign-in.js";
import { canRenew, checkSignInFresh, needsRenewal, needsTouch } from "./sign-in-lifetime.js";

export const LOGIN_HINT =
  "run `baton login` (or, in a script: printf '%s' \"$TOKEN\" | baton login -w <workspace-id>)";

export interface ClientSession {
  location: ConfigLocation;
  config: SavedConfig;
  apiUrl: string;
  api: ApiClient;
}

export interface OpenSessionOptions {
  env: NodeJS.ProcessEnv;
  log?: Log;
  now?: () => number;
}

export async function openSession(options: OpenSessionOptions): Promise<ClientSession> {
  const now = options.now ?? Date.now;
  const location = locateConfig(options.env);
  const saved = readSavedConfig(location);
  if (saved === null) throw new BatonError("not_logged_in", `you are not signed in: ${LOGIN_HINT}`);
  const freshness = checkSignInFresh(saved, now());
  if (!freshness.fresh) {
    // The lapsed token is of no further use; the file goes so no later command sends it.
    deleteConfig(location);
    throw new BatonError("not_logged_in", `${freshness.why}: ${LOGIN_HINT}`);
  }
  const apiUrl = resolveApiUrl({ env: options.env, saved: saved.apiUrl });
  const renew = (refused?: string) =>
    renewSavedSignIn({
      location,
      apiUrl,
      now,
      loginHint: LOGIN_HINT,
      ...(refused === undefined ? {} : { refused }),
    });
  let config = saved;
  if (needsRenewal(saved, now())) {
    config = await renew();
  } else if (needsTouch(saved, now())) {
    config = { ...saved, lastUsedAt: new Date(now()).toISOString() };
    saveConfig(location, config);
  }
  const api = createApiClient({
    apiUrl,
    token: config.token,
    ...tokenRenewer(config, location, apiUrl, now),
    ...(options.log ? { log: options.log } : {}),
  });
  return { location, config, apiUrl, api };
}

/** The API client's `renewToken` for a saved browser sign-in (renewed once when the service refuses the token), or
 * nothing for a token that cannot be renewed. */
export function tokenRenewer(
  config: SavedConfig,
  location: ConfigLocation,
  apiUrl: string,
  now: () => number = Date.now,
): { renewToken?: (refused: string) => Promise<string> } {
  if (!canRenew(config)) return {};
  return {
    renewToken: async (refused) =>
      (await renewSavedSignIn({ location, apiUrl, now, refused, loginHint: LOGIN_HINT })).token,
  };
}

/** `-w` when given, else the saved default; neither is an error saying how to pick one. */
export function chooseWorkspace(flag: string | undefined, config: SavedConfig): string {
  const chosen = flag ?? config.workspace;
  if (chosen) return chosen;
  throw new UsageError(
    "no default workspace is saved: pass -w <workspace-id>, or save one with `baton workspace <workspace-id>` (list them with `baton workspace`)",
  );
}
