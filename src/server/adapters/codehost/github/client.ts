// The adapter's Octokit (GitHub's own SDK), loaded on first use so neither `baton`'s start-up nor a client
// bundle ever loads it: @octokit/core with the REST methods, @octokit/plugin-retry (network failures and 5xx,
// three retries backing off quadratically) and @octokit/plugin-throttling (primary and secondary rate limits),
// and @octokit/auth-app for the App's JWT and the installation tokens. The JWT is signed on the service's clock
// (app-jwt.ts); installation tokens live in one cache per adapter, kept until five minutes before they expire,
// and auth-app makes concurrent askers share one request. Each request has a timeout and counts as a network
// failure past it. Only 5xx and network failures are retried: other answers go back to the caller.
import type { ThrottlingOptions } from "@octokit/plugin-throttling";
import type { Logger } from "pino";
import type { CodehostAppSettings } from "../../integrations/settings.js";
import type { InstallationToken } from "../app-api.js";
import { APP_JWT_LIFETIME_S, signAppJwt } from "./app-jwt.js";
import { GITHUB_API_VERSION, GITHUB_API_VERSION_HEADER, GITHUB_USER_AGENT } from "./wire.js";

export const DEFAULT_MAX_WAIT_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 30_000;
/** Rate-limit waits one call may sit through before it gives up (each is also bounded by maxWaitMs). */
const MAX_RATE_LIMIT_WAITS = 3;
export const TOKEN_REFRESH_MARGIN_MS = 5 * 60 * 1000;
/** Every 4xx goes back to the caller, which knows what a 404 or 422 means for its route. */
const NOT_RETRIED = Array.from({ length: 100 }, (_, i) => 400 + i);
/**
 * Throttling's queues for writes (1 s apart), notifying writes (3 s) and searches (2 s), unpaced: the service
 * waits when GitHub says so (primary and secondary limits) and does not space its calls ahead of time, as before
 * Octokit (docs/integrations.md). Dropping the three options turns Octokit's spacing on.
 */
const UNPACED = {
  key: () => ({ schedule: (_options: unknown, job: () => Promise<unknown>) => job() }),
} as unknown as NonNullable<Extract<ThrottlingOptions, { onRateLimit: unknown }>["write"]>;

export interface ClientOptions {
  settings: CodehostAppSettings;
  logger: Logger;
  now: () => Date;
  fetch?: typeof fetch | undefined;
  /** The longest wait under a rate limit before a call fails saying when to try again (default 60 s). */
  maxWaitMs?: number | undefined;
  /** Pause before the first retry of a network failure or 5xx (default 500 ms; the n-th retry waits n² times it). */
  retryMinTimeoutMs?: number | undefined;
  /** Each request's timeout (default 30 s); one that times out is retried as a network failure. */
  timeoutMs?: number | undefined;
}

/** Whether auth-app's cached entry (`token|createdAt|expiresAt|…`) is still good to hand out at `now` (pure). */
export function isCachedTokenFresh(entry: string, now: Date): boolean {
  const expiresAt = Date.parse(entry.split("|")[2] ?? "");
  return Number.isFinite(expiresAt) && expiresAt - TOKEN_REFRESH_MARGIN_MS > now.getTime();
}

async function loadOctokit() {
  const [{ Octokit }, { restEndpointMethods }, { retry }, { throttling }, { createAppAuth }] =
    await Promise.all([
      import("@octokit/core"),
      import("@octokit/plugin-rest-endpoint-methods"),
      import("@octokit/plugin-retry"),
      import("@octokit/plugin-throttling"),
      import("@octokit/auth-app"),
    ]);
  return { GithubOctokit: Octokit.plugin(restEndpointMethods, retry, throttling), createAppAuth };
}
type Loaded = Awaited<ReturnType<typeof loadOctokit>>;
export type GithubOctokit = InstanceType<Loaded["GithubOctokit"]>;

export interface GithubClient {
  /** Authenticated as the App (its JWT) for `/app/*`, and able to mint any installation's token. */
  app: GithubOctokit;
  /** Authenticated as the installation (its token, minted and cached by auth-app). */
  installation(installationId: string): GithubOctokit;
  /** Authenticated with a user-to-server token. */
  user(token: string): GithubOctokit;
  installationToken(installationId: string): Promise<InstallationToken>;
  /** Trades an OAuth `code` for the user-to-server token (the App's client id and secret). */
  userToken(code: string): Promise<string>;
}

export async function createGithubClient(options: ClientOptions): Promise<GithubClient> {
  const { GithubOctokit: Github, createAppAuth } = await loadOctokit();
  const { settings, logger, now } = options;
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const doFetch = options.fetch ?? fetch;
  const timedFetch: typeof fetch = async (input, init) => {
    const route = new URL(input instanceof Request ? input.url : String(input)).pathname;
    try {
      const response = await doFetch(input, {
        ...init,
        signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
      if (response.status >= 500)
        logger.debug({ route, reason: `answered ${response.status}` }, "code host call failed");
      return response;
    } catch (error) {
      logger.debug(
        { route, reason: `${(error as Error).name}: ${(error as Error).message}` },
        "code host call failed",
      );
      throw error;
    }
  };
  const onLimit =
    (kind: "primary" | "secondary") =>
    (
      retryAfterS: number,
      request: { method: string; url: string },
      _octokit: unknown,
      retryCount: number,
    ) => {
      const waitMs = retryAfterS * 1000;
      const wait = retryCount < MAX_RATE_LIMIT_WAITS && waitMs <= maxWaitMs;
      if (wait) logger.info({ route: request.url, limit: kind, waitMs }, "code host rate limit: waiting");
      return wait;
    };
  const cache = new Map<string, string>();
  const tokenCache = {
    get: (key: string) => {
      const entry = cache.get(key);
      return entry !== undefined && isCachedTokenFresh(entry, now()) ? entry : undefined;
    },
    set: (key: string, value: string) => void cache.set(key, value),
  };
  const appAuth = {
    appId: settings.appId,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    // auth-app passes the difference it read from GitHub's Date header after a clock-skew refusal.
    createJwt: async (appId: string | number, timeDifferenceS?: number) => {
      const at = new Date(now().getTime() + (timeDifferenceS ?? 0) * 1000);
      const jwt = signAppJwt({ appId: String(appId), privateKeyPem: settings.privateKeyPem, now: at });
      return { jwt, expiresAt: new Date(at.getTime() + APP_JWT_LIFETIME_S * 1000).toISOString() };
    },
    cache: tokenCache,
  };
  const base = {
    baseUrl: settings.apiUrl,
    userAgent: GITHUB_USER_AGENT,
    request: { fetch: timedFetch },
    log: {
      debug: (message: string) => logger.debug(message),
      info: (message: string) => logger.info(message),
      warn: (message: string) => logger.warn(message),
      error: (message: string) => logger.error(message),
    },
    retry: { doNotRetry: NOT_RETRIED, retryAfterBaseValue: options.retryMinTimeoutMs ?? 500 },
    throttle: {
      onRateLimit: onLimit("primary"),
      onSecondaryRateLimit: onLimit("secondary"),
      write: UNPACED,
      notifications: UNPACED,
      search: UNPACED,
    },
  };
  // `id` keys throttling's queues (at most 10 calls at once per installation, one token request at a time).
  const make = (id: string, auth: unknown, authStrategy?: typeof createAppAuth) => {
    const octokit = new Github({
      ...base,
      throttle: { ...base.throttle, id },
      auth,
      ...(authStrategy ? { authStrategy } : {}),
    });
    octokit.hook.before("request", (request) => {
      request.headers[GITHUB_API_VERSION_HEADER] = GITHUB_API_VERSION;
    });
    return octokit;
  };
  const app = make("app", appAuth, createAppAuth);
  const installations = new Map<string, GithubOctokit>();
  return {
    app,
    installation(installationId) {
      let octokit = installations.get(installationId);
      if (!octokit) {
        octokit = make(`installation:${installationId}`, { ...appAuth, installationId }, createAppAuth);
        installations.set(installationId, octokit);
      }
      return octokit;
    },
    user: (token) => make("user", token),
    async installationToken(installationId) {
      const made = (await app.auth({ type: "installation", installationId })) as {
        token: string;
        expiresAt: string;
      };
      return { token: made.token, expiresAt: new Date(made.expiresAt) };
    },
    async userToken(code) {
      return ((await app.auth({ type: "oauth-user", code })) as { token: string }).token;
    },
  };
}
