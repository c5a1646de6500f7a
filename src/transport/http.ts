// One JSON request to the operations service with bounded retries (p-retry): dropped connections, 5xx and 429
// are retried, honouring Retry-After up to a ceiling; any other 4xx is final. The caller keeps headers (and so
// the idempotency key) identical across attempts, so a retry never starts a second operation.
import pRetry from "p-retry";
import type { Dispatcher } from "undici";
import { type BatonError, ServiceError } from "../errors.js";
import { isRetryableStatus, mapHttpFailure, parseRetryAfter } from "./errors.js";
import { describeBaseUrl } from "./settings.js";
import { sendRequest } from "./undici.js";
import { HEADERS } from "./wire.js";

export interface RetryPolicy {
  /** Further attempts after the first; the reference's client tries up to three times in all. */
  retries: number;
  /** First back-off delay; later ones double. */
  minBackoffMs: number;
  /** A Retry-After longer than this ends the retries instead of stalling the agent. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 2, minBackoffMs: 250, maxRetryAfterMs: 10_000 };

export interface JsonRequest {
  method: "GET" | "POST";
  /** Path and query below the base URL, from wire.ts. */
  path: string;
  headers: Record<string, string>;
  body?: unknown;
  /** What the client is doing, for error messages: `starting the activation of acme/api`. */
  doing: string;
  /** Aborts the request and any retry (the caller stopped waiting); the promise rejects with the reason. */
  signal?: AbortSignal;
}

export interface JsonResponse {
  status: number;
  body: unknown;
}

export interface HttpEngine {
  baseUrl: string;
  dispatcher: Dispatcher;
  policy: RetryPolicy;
  sleep: (ms: number) => Promise<void>;
  /** Called before each retry; the CLI stays quiet unless it wants to log. */
  onRetry?: (info: { attempt: number; error: BatonError; delayMs: number }) => void;
}

class AttemptFailure extends Error {
  constructor(
    readonly failure: BatonError,
    readonly retryable: boolean,
    readonly retryAfterMs: number | undefined,
  ) {
    super(failure.message);
  }
}

export async function sendJson(engine: HttpEngine, req: JsonRequest): Promise<JsonResponse> {
  const url = `${engine.baseUrl}${req.path}`;
  const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
  const headers = {
    accept: "application/json",
    ...(payload === undefined ? {} : { "content-type": "application/json" }),
    ...req.headers,
  };
  const attempt = async (): Promise<JsonResponse> => {
    let status: number;
    let text: string;
    let retryAfterHeader: string | undefined;
    try {
      const target = new URL(url);
      const res = await sendRequest(engine.dispatcher, {
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers,
        body: payload,
        ...(req.signal ? { signal: req.signal } : {}),
      });
      status = res.statusCode;
      const raw = res.headers[HEADERS.retryAfter];
      retryAfterHeader = Array.isArray(raw) ? raw[0] : raw;
      text = await res.body.text();
    } catch (error) {
      if (req.signal?.aborted) throw req.signal.reason;
      throw new AttemptFailure(networkFailure(engine.baseUrl, req.doing, error), true, undefined);
    }
    const body = parseBody(text);
    if (status >= 200 && status < 300) return { status, body };
    const failure = mapHttpFailure({ status, body, doing: req.doing });
    if (!isRetryableStatus(status)) throw new AttemptFailure(failure, false, undefined);
    const retryAfterMs = parseRetryAfter(retryAfterHeader, Date.now());
    if (retryAfterMs !== undefined && retryAfterMs > engine.policy.maxRetryAfterMs) {
      // Waiting longer than the ceiling would stall the agent; say when to come back instead.
      throw new AttemptFailure(
        new ServiceError(
          "service_error",
          `${failure.message} (the service asked to wait ${Math.ceil(retryAfterMs / 1000)} s; try again then)`,
          {
            status,
            cause: failure,
          },
        ),
        false,
        undefined,
      );
    }
    throw new AttemptFailure(failure, true, retryAfterMs);
  };

  try {
    return await pRetry(attempt, {
      retries: engine.policy.retries,
      minTimeout: engine.policy.minBackoffMs,
      factor: 2,
      randomize: true,
      ...(req.signal ? { signal: req.signal } : {}),
      shouldRetry: ({ error }) => error instanceof AttemptFailure && error.retryable,
      onFailedAttempt: async ({ error, attemptNumber, retriesLeft, retryDelay }) => {
        if (!(error instanceof AttemptFailure) || !error.retryable || retriesLeft === 0) return;
        const extra = Math.max(0, (error.retryAfterMs ?? 0) - retryDelay);
        engine.onRetry?.({ attempt: attemptNumber, error: error.failure, delayMs: retryDelay + extra });
        if (extra > 0) await engine.sleep(extra);
      },
    });
  } catch (error) {
    if (error instanceof AttemptFailure) throw error.failure;
    throw error;
  }
}

function parseBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function networkFailure(baseUrl: string, doing: string, error: unknown): ServiceError {
  const code = errorCode(error);
  return new ServiceError(
    "network",
    `could not reach the operations service at ${describeBaseUrl(baseUrl)} while ${doing}${code ? ` (${code})` : ""}. ` +
      "Check that BATON_OPS_URL names the running service and try again.",
    { cause: error },
  );
}

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
