// One GraphQL client for Linear over Node's fetch: POST `<apiUrl>/graphql` with `Authorization: Bearer <token>`,
// retried (p-retry) on dropped connections, 5xx and rate limiting (decideRetry), and GraphQL `errors` turned into
// a TrackerApiError naming the operation and Linear's message. The token is a header only, never in a message.
import { setTimeout as sleep } from "node:timers/promises";
import pRetry, { AbortError } from "p-retry";
import { z } from "zod";
import { TrackerApiError } from "./errors.js";
import { decideRetry } from "./rate-limit.js";
import { LINEAR_PATHS } from "./wire.js";

export interface GraphqlPolicy {
  /** Further attempts after the first. */
  retries: number;
  /** First back-off on a dropped connection or 5xx; later ones double. */
  minBackoffMs: number;
  /** A rate limit that refills later than this is not waited for: the call fails saying so. */
  maxRateLimitWaitMs: number;
  /** One attempt's limit, so a tracker that hangs cannot hold a page or a search open. */
  attemptTimeoutMs: number;
}

export const DEFAULT_GRAPHQL_POLICY: GraphqlPolicy = {
  retries: 3,
  minBackoffMs: 200,
  maxRateLimitWaitMs: 10_000,
  attemptTimeoutMs: 15_000,
};

export interface GraphqlClientOptions {
  apiUrl: string;
  fetch?: typeof fetch;
  now?: () => Date;
  policy?: Partial<GraphqlPolicy>;
  /** Waits out a rate limit; tests may shorten it. */
  sleep?: (ms: number) => Promise<void>;
}

export interface GraphqlRequest<T> {
  operationName: string;
  query: string;
  variables?: Record<string, unknown>;
  /** The `data` the operation must answer. */
  data: z.ZodType<T>;
}

const GraphqlAnswer = z.object({
  data: z.unknown().optional(),
  errors: z
    .array(
      z.object({
        message: z.string(),
        extensions: z.object({ code: z.string().optional() }).passthrough().optional(),
      }),
    )
    .optional(),
});

export type GraphqlClient = <T>(token: string, request: GraphqlRequest<T>) => Promise<T>;

export function createGraphqlClient(options: GraphqlClientOptions): GraphqlClient {
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? (() => new Date());
  const pause = options.sleep ?? ((ms: number) => sleep(ms));
  const policy = { ...DEFAULT_GRAPHQL_POLICY, ...options.policy };
  const url = `${options.apiUrl}${LINEAR_PATHS.graphql}`;

  return async <T>(token: string, request: GraphqlRequest<T>): Promise<T> => {
    const doing = `the tracker's ${request.operationName}`;
    const attempt = async (): Promise<T> => {
      let response: Response;
      try {
        response = await doFetch(url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/json",
            accept: "application/json",
          },
          body: JSON.stringify({
            operationName: request.operationName,
            query: request.query,
            variables: request.variables ?? {},
          }),
          signal: AbortSignal.timeout(policy.attemptTimeoutMs),
        });
      } catch (error) {
        throw retryable(
          new TrackerApiError(`${doing} failed: ${options.apiUrl} cannot be reached`, { cause: error }),
          decideRetry({ status: undefined, errorCodes: [], header: () => null, nowMs: now().getTime() }, 0),
        );
      }
      const parsed = GraphqlAnswer.safeParse(await response.json().catch(() => undefined));
      const errors = parsed.success ? (parsed.data.errors ?? []) : [];
      const codes = errors.flatMap((e) => (e.extensions?.code ? [e.extensions.code] : []));
      if (!response.ok || errors.length > 0 || !parsed.success) {
        const decision = decideRetry(
          {
            status: response.status,
            errorCodes: codes,
            header: (n) => response.headers.get(n),
            nowMs: now().getTime(),
          },
          policy.maxRateLimitWaitMs,
        );
        const what = errors.length > 0 ? errors.map((e) => e.message).join("; ") : `HTTP ${response.status}`;
        const wait =
          decision.rateLimited && !decision.retry
            ? ` (rate limited for ${Math.ceil((decision.waitMs ?? 0) / 1000)} s more; try again later)`
            : "";
        throw retryable(
          new TrackerApiError(`${doing} failed: ${what}${wait}`, {
            status: response.status,
            trackerCode: codes[0],
          }),
          decision,
        );
      }
      const data = request.data.safeParse(parsed.data.data);
      if (!data.success)
        throw new AbortError(
          new TrackerApiError(`${doing} failed: the tracker's answer is not what the operation asks for`, {
            status: response.status,
          }),
        );
      return data.data;
    };
    try {
      return await pRetry(attempt, {
        retries: policy.retries,
        minTimeout: policy.minBackoffMs,
        factor: 2,
        randomize: false,
        onFailedAttempt: async ({ error }) => {
          const waitMs = (error as RetryableFailure).waitMs;
          if (waitMs) await pause(waitMs);
        },
      });
    } catch (error) {
      if (error instanceof AbortError) throw error.originalError;
      throw error;
    }
  };
}

type RetryableFailure = TrackerApiError & { waitMs?: number };

function retryable(error: TrackerApiError, decision: ReturnType<typeof decideRetry>): Error {
  if (!decision.retry) return new AbortError(error);
  // A rate limit's own wait replaces the back-off's, which p-retry adds after this.
  return Object.assign(error, { waitMs: decision.rateLimited ? decision.waitMs : 0 });
}
