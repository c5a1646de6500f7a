// Linear's GraphQL API through @linear/sdk's LinearClient: its client sends our documents (queries.ts, which
// select just the fields the port maps, in one request) with the member's or the app's bearer token and parses
// Linear's refusals into LinearError. Around it stays what the SDK leaves to its caller: one attempt's time limit,
// another try (p-retry) on a dropped connection, a 5xx or a rate limit worth waiting out (decideRetry), and a
// TrackerApiError naming the operation and Linear's message. The token is a header only, never in a message.
import { setTimeout as sleep } from "node:timers/promises";
import pRetry, { AbortError } from "p-retry";
import type { z } from "zod";
import { TrackerApiError } from "./errors.js";
import { decideRetry, type RetryDecision } from "./rate-limit.js";
import { type LinearError, loadLinearSdk } from "./sdk.js";
import { LINEAR_PATHS, LINEAR_RATE_LIMIT } from "./wire.js";

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
  now?: () => Date;
  policy?: Partial<GraphqlPolicy>;
  /** Waits out a rate limit; tests may shorten it. */
  sleep?: (ms: number) => Promise<void>;
}

export interface GraphqlRequest<T> {
  operationName: string;
  /** One operation, named `operationName` (the SDK's client sends the document and variables only). */
  query: string;
  variables?: Record<string, unknown>;
  /** The `data` the operation must answer. */
  data: z.ZodType<T>;
}

export type GraphqlClient = <T>(token: string, request: GraphqlRequest<T>) => Promise<T>;

/** What LinearError keeps of Linear's raw errors: `extensions.code` is Linear's, not in the SDK's types. */
type RawErrors = { message?: string; extensions?: { code?: string } }[] | undefined;

export function createGraphqlClient(options: GraphqlClientOptions): GraphqlClient {
  const now = options.now ?? (() => new Date());
  const pause = options.sleep ?? ((ms: number) => sleep(ms));
  const policy = { ...DEFAULT_GRAPHQL_POLICY, ...options.policy };
  const apiUrl = `${options.apiUrl}${LINEAR_PATHS.graphql}`;

  return async <T>(token: string, request: GraphqlRequest<T>): Promise<T> => {
    const sdk = await loadLinearSdk();
    const doing = `the tracker's ${request.operationName}`;
    /** Linear's refusal as our error, with whether and when to try again. */
    const refusal = (error: LinearError): Error => {
      const raw = error.raw?.response;
      const codes = ((raw?.errors as RawErrors) ?? []).flatMap((e) => e.extensions?.code ?? []);
      // The SDK's own verdict (extensions.type `ratelimited`, or a 429) counts as Linear's code does.
      if (error instanceof sdk.RatelimitedLinearError) codes.push(LINEAR_RATE_LIMIT.errorCode);
      const decision = decideRetry(
        {
          status: error.status,
          errorCodes: codes,
          header: (name) => raw?.headers?.get(name) ?? null,
          nowMs: now().getTime(),
        },
        policy.maxRateLimitWaitMs,
      );
      const messages = error.errors?.map((e) => e.message) ?? [];
      const what = messages.length > 0 ? messages.join("; ") : `HTTP ${error.status}`;
      const wait =
        decision.rateLimited && !decision.retry
          ? ` (rate limited for ${Math.ceil((decision.waitMs ?? 0) / 1000)} s more; try again later)`
          : "";
      const failure = new TrackerApiError(`${doing} failed: ${what}${wait}`, {
        status: error.status,
        trackerCode: codes[0],
      });
      return retryable(failure, decision);
    };
    const attempt = async (): Promise<T> => {
      let client: InstanceType<typeof sdk.LinearClient>;
      try {
        const signal = AbortSignal.timeout(policy.attemptTimeoutMs);
        client = new sdk.LinearClient({ accessToken: token, apiUrl, signal });
      } catch (error) {
        // The SDK refuses an http: URL other than loopback's.
        const why = error instanceof Error ? error.message : String(error);
        throw new AbortError(new TrackerApiError(`${doing} failed: ${why}`, { code: "not_configured" }));
      }
      let data: unknown;
      try {
        ({ data } = await client.client.rawRequest(request.query, request.variables ?? {}));
      } catch (error) {
        if (error instanceof sdk.LinearError) throw refusal(error);
        throw retryable(
          new TrackerApiError(`${doing} failed: ${options.apiUrl} cannot be reached`, { cause: error }),
          { retry: true, rateLimited: false, waitMs: 0 },
        );
      }
      const parsed = request.data.safeParse(data);
      if (!parsed.success)
        throw new AbortError(
          new TrackerApiError(`${doing} failed: the tracker's answer is not what the operation asks for`, {
            status: 200,
          }),
        );
      return parsed.data;
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

function retryable(error: TrackerApiError, decision: RetryDecision): Error {
  if (!decision.retry) return new AbortError(error);
  // A rate limit's own wait replaces the back-off's, which p-retry adds after this.
  return Object.assign(error, { waitMs: decision.rateLimited ? decision.waitMs : 0 });
}
