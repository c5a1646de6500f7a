// Renewing a browser sign-in's hour-long access token with its refresh token (RFC 6749 section 6), as the command
// that needs it starts or when the service refuses the token midway. The service rotates the refresh token on
// every use and ends the whole sign-in when a used one comes back (RFC 9700 section 4.14.2), so two commands
// renewing at once would sign the user out: the renewal holds a lock beside the config file, and a command that
// waited for it reads the tokens the other one saved instead of renewing again.
import { BatonError, isBatonError } from "../errors.js";
import {
  discoverAuthorizationServer,
  type IssuedTokens,
  oauthClient,
  pathOn,
  readTokenAnswer,
} from "./authorization-server.js";
import { deleteConfig, readSavedConfig, saveConfig } from "./config.js";
import type { ConfigLocation } from "./config-path.js";
import type { SavedConfig } from "./config-schema.js";
import { canRenew, needsRenewal } from "./sign-in-lifetime.js";

/** How long a command waits for another one's renewal before giving up (a renewal is one or two requests). */
const LOCK_WAIT = { retries: 60, minTimeout: 100, maxTimeout: 500 } as const;
/** A lock older than this was left by a command that died while renewing: it is taken over. */
const LOCK_STALE_MS = 30_000;

export interface RenewOptions {
  location: ConfigLocation;
  apiUrl: string;
  now: () => number;
  /** The access token the service just refused (401): renew even though the saved one has not run out. */
  refused?: string;
  /** Appended to "sign in again" messages. */
  loginHint: string;
}

/** Trades the refresh token for a new access token and a new refresh token; the service's refusal ends the sign-in. */
export async function refreshTokens(options: {
  apiUrl: string;
  clientId: string;
  refreshToken: string;
  nowMs: () => number;
  loginHint: string;
}): Promise<IssuedTokens> {
  const apiUrl = options.apiUrl.replace(/\/+$/, "");
  const origin = new URL(apiUrl).origin;
  const http = oauthClient(origin);
  try {
    const meta = await discoverAuthorizationServer(http, apiUrl);
    const answer = await http.request({
      method: "POST",
      path: pathOn(origin, meta.token_endpoint),
      doing: "renewing your sign-in",
      form: {
        grant_type: "refresh_token",
        refresh_token: options.refreshToken,
        client_id: options.clientId,
        resource: `${apiUrl}/v1`,
      },
    });
    return readTokenAnswer(answer.body, options.nowMs());
  } catch (error) {
    if (isBatonError(error) && error.details?.wireError === "invalid_grant")
      throw new BatonError(
        "not_logged_in",
        `your sign-in has ended (signed out, disconnected on the dashboard, past its 90 days, or renewed elsewhere with the same file): ${options.loginHint}`,
        { cause: error },
      );
    throw error;
  } finally {
    http.close();
  }
}

/** The saved sign-in with a live access token: renewed here, or by another command while this one waited. */
export async function renewSavedSignIn(options: RenewOptions): Promise<SavedConfig> {
  const { lock } = await import("proper-lockfile");
  const { location } = options;
  let release: () => Promise<void>;
  try {
    release = await lock(location.file, {
      lockfilePath: `${location.file}.lock`,
      realpath: false,
      stale: LOCK_STALE_MS,
      retries: LOCK_WAIT,
    });
  } catch (error) {
    throw new BatonError(
      "conflict",
      `another baton command has been renewing your sign-in for too long (lock ${location.file}.lock); run the command again`,
      { cause: error },
    );
  }
  try {
    const current = readSavedConfig(location);
    if (current === null)
      throw new BatonError("not_logged_in", `you are not signed in: ${options.loginHint}`);
    const renewedMeanwhile =
      options.refused === undefined
        ? !needsRenewal(current, options.now())
        : current.token !== options.refused;
    if (renewedMeanwhile) return current;
    if (!canRenew(current))
      throw new BatonError("not_logged_in", `your sign-in has expired: ${options.loginHint}`);
    let tokens: IssuedTokens;
    try {
      tokens = await refreshTokens({
        apiUrl: options.apiUrl,
        clientId: current.clientId,
        refreshToken: current.refreshToken,
        nowMs: options.now,
        loginHint: options.loginHint,
      });
    } catch (error) {
      // An ended sign-in's tokens are of no further use; the file goes so no later command sends them.
      if (isBatonError(error) && error.code === "not_logged_in") deleteConfig(location);
      throw error;
    }
    const renewed: SavedConfig = {
      ...current,
      token: tokens.accessToken,
      expiresAt: tokens.expiresAt,
      refreshToken: tokens.refreshToken ?? current.refreshToken,
      lastUsedAt: new Date(options.now()).toISOString(),
    };
    saveConfig(location, renewed);
    return renewed;
  } finally {
    await release().catch(() => undefined);
  }
}
