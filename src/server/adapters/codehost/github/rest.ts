// One client for GitHub's REST API over Node's fetch: the documented headers on every call, a timeout per
// request, retries (p-retry) of network failures and 5xx answers, and waits under the rate limits (rate-limit.ts)
// bounded by `maxWaitMs`, past which it fails saying when to try again. Other answers go back to the caller,
// which knows what a 404 or 422 means for its route. It never logs a token or a body.
import { setTimeout as sleep } from "node:timers/promises";
import pRetry from "p-retry";
import type { Logger } from "pino";
import type { z } from "zod";
import { CodehostError } from "../port.js";
import { classifyRateLimit, decideRateLimitWait } from "./rate-limit.js";
import {
  GITHUB_API_VERSION,
  GITHUB_HEADERS,
  GITHUB_MEDIA_TYPE,
  GITHUB_RAW_MEDIA_TYPE,
  GITHUB_USER_AGENT,
} from "./wire.js";

export const DEFAULT_MAX_WAIT_MS = 60_000;
const DEFAULT_TIMEOUT_MS = 30_000;
/** Rate-limit waits one call may sit through before it gives up (each is also bounded by maxWaitMs). */
const MAX_RATE_LIMIT_WAITS = 3;

export interface RestOptions {
  apiUrl: string;
  logger: Logger;
  now: () => Date;
  fetch?: typeof fetch | undefined;
  maxWaitMs?: number | undefined;
  timeoutMs?: number | undefined;
  /** Retries of a network failure or 5xx, and the first pause (doubling). */
  retries?: number | undefined;
  retryMinTimeoutMs?: number | undefined;
}

export interface RestAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the text when the answer is not JSON (a raw file). */
  body: unknown;
}

export interface RestCall {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  /** Under `apiUrl`, or an absolute URL on its origin (a Link header's next page). */
  path: string;
  /** `Bearer <App JWT or installation token>`. */
  token: string;
  query?: Record<string, string> | undefined;
  body?: unknown;
  accept?: string | undefined;
}

class TransientError extends Error {}

export type RestClient = ReturnType<typeof createRestClient>;

export function createRestClient(options: RestOptions) {
  const doFetch = options.fetch ?? fetch;
  const maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  const urlOf = (call: RestCall) => {
    // A Link header's absolute next page is followed only on the API's own origin: the token goes nowhere else.
    const url = /^https?:/.test(call.path) ? new URL(call.path) : new URL(`${options.apiUrl}${call.path}`);
    if (url.origin !== new URL(options.apiUrl).origin)
      throw new CodehostError(`the code host pointed at ${url.origin}, outside its API ${options.apiUrl}`);
    for (const [k, v] of Object.entries(call.query ?? {})) url.searchParams.set(k, v);
    return url;
  };

  const once = async (call: RestCall, url: URL): Promise<RestAnswer> => {
    let response: Response;
    try {
      response = await doFetch(url, {
        method: call.method ?? "GET",
        headers: {
          [GITHUB_HEADERS.accept]: call.accept ?? GITHUB_MEDIA_TYPE,
          [GITHUB_HEADERS.apiVersion]: GITHUB_API_VERSION,
          [GITHUB_HEADERS.userAgent]: GITHUB_USER_AGENT,
          [GITHUB_HEADERS.authorization]: `Bearer ${call.token}`,
          ...(call.body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
        redirect: "follow",
      });
    } catch (error) {
      throw new TransientError(`${(error as Error).name}: ${(error as Error).message}`, { cause: error });
    }
    const text = await response.text().catch(() => "");
    if (response.status >= 500) throw new TransientError(`answered ${response.status}`);
    let body: unknown = text;
    // A raw file stays text, whatever its media type says (GitHub labels raw answers `…raw+json`).
    const raw = call.accept === GITHUB_RAW_MEDIA_TYPE;
    if (!raw && (response.headers.get("content-type") ?? "").includes("json") && text !== "")
      body = (() => {
        try {
          return JSON.parse(text) as unknown;
        } catch {
          return text;
        }
      })();
    return { status: response.status, headers: response.headers, body };
  };

  const withRetries = (call: RestCall, url: URL) =>
    pRetry(() => once(call, url), {
      retries: options.retries ?? 3,
      minTimeout: options.retryMinTimeoutMs ?? 500,
      factor: 2,
      shouldRetry: ({ error }) => error instanceof TransientError,
      onFailedAttempt: ({ error, attemptNumber, retriesLeft }) =>
        options.logger.debug(
          { route: url.pathname, attemptNumber, retriesLeft, reason: error.message },
          "code host call failed",
        ),
    }).catch((error: unknown) => {
      throw new CodehostError(
        `the code host's API did not answer ${call.method ?? "GET"} ${url.pathname} (${(error as Error).message}); try again later`,
        { cause: error },
      );
    });

  return {
    async request(call: RestCall): Promise<RestAnswer> {
      const url = urlOf(call);
      for (let waits = 0; ; waits++) {
        const answer = await withRetries(call, url);
        const message = (answer.body as { message?: unknown } | null)?.message;
        const limit = classifyRateLimit(
          {
            status: answer.status,
            header: (name) => answer.headers.get(name),
            message: typeof message === "string" ? message : undefined,
          },
          options.now(),
        );
        if (limit.kind === "none") return answer;
        const decision = decideRateLimitWait(limit, waits < MAX_RATE_LIMIT_WAITS ? maxWaitMs : -1);
        if (!decision.wait) throw new CodehostError(decision.message);
        options.logger.info(
          { route: url.pathname, limit: limit.kind, waitMs: decision.ms },
          "code host rate limit: waiting",
        );
        await sleep(decision.ms);
      }
    },
  };
}

/** The answer's JSON as a record, or a CodehostError naming the route and status when it is not `ok`. */
export function expectStatus(answer: RestAnswer, ok: readonly number[], what: string): unknown {
  if (ok.includes(answer.status)) return answer.body;
  const message = (answer.body as { message?: unknown } | null)?.message;
  throw new CodehostError(
    `the code host refused to ${what} (${answer.status}${typeof message === "string" ? `: ${message}` : ""})`,
  );
}

/** The answer's body checked against `schema`; a body of another shape is a CodehostError, not a crash later. */
export function readAnswer<T>(
  schema: z.ZodType<T>,
  answer: RestAnswer,
  ok: readonly number[],
  what: string,
): T {
  const parsed = schema.safeParse(expectStatus(answer, ok, what));
  if (parsed.success) return parsed.data;
  const where = parsed.error.issues[0]?.path.join(".") || "its body";
  throw new CodehostError(`the code host's answer to "${what}" is not what its API documents (at ${where})`);
}

/** The `rel="next"` URL of a Link header (RFC 8288), or undefined on the last page. */
export function nextPageOf(link: string | null): string | undefined {
  for (const entry of (link ?? "").split(","))
    if (/;\s*rel="?next"?/.test(entry)) return /<([^>]+)>/.exec(entry)?.[1];
  return undefined;
}
