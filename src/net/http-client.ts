// The CLI's one HTTP client (DESIGN.md "One HTTP client in the CLI"): JSON requests over node:http(s) with one
// keep-alive agent, bounded retries (p-retry) on dropped connections, 5xx and 429, Retry-After up to a ceiling,
// and requests logged at debug level. The operations transport and the client commands build on it; each passes
// how to name its service and how to read its refusals.
//
// node:http rather than undici: undici's HTTP parser is WebAssembly, and a short-lived CLI process waited about
// 80 ms at exit for V8 to finish compiling it. node:http is loaded with require() only when a request is made.
import type { Agent as HttpAgent, IncomingHttpHeaders } from "node:http";
import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";
import pRetry from "p-retry";
import type { BatonError } from "../errors.js";
import { type Log, SILENT_LOG } from "../log-level.js";
import { type HttpFailure, isRetryableStatus, parseRetryAfter, RETRY_AFTER_HEADER } from "./retry.js";

export interface RetryPolicy {
  /** Further attempts after the first; the reference's client tries up to three times in all. */
  retries: number;
  /** First back-off delay; later ones double. */
  minBackoffMs: number;
  /** A Retry-After longer than this ends the retries instead of stalling the agent. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 2, minBackoffMs: 250, maxRetryAfterMs: 10_000 };

export interface HttpClientOptions {
  /** Scheme, host, port and an optional path prefix, without a trailing slash. */
  baseUrl: string;
  /** Sent with every request (credentials); never logged. */
  headers?: Record<string, string>;
  policy?: Partial<RetryPolicy>;
  /** How long to wait for a TCP (and TLS) connection. */
  connectTimeoutMs?: number;
  /** How long one attempt may take from sending to the end of the body, beyond any long-poll wait it asks for. */
  responseTimeoutMs?: number;
  /** Turns an answer outside 2xx into the error to throw (or retry, when its status is retryable). */
  classify: (failure: HttpFailure) => BatonError;
  /** Turns a connection failure into the error to throw after the last retry: names the setting to check. */
  unreachable: (doing: string, code: string | undefined, cause: unknown) => BatonError;
  log?: Log;
  /** Called before each retry. */
  onRetry?: (info: { attempt: number; error: BatonError; delayMs: number }) => void;
  /** Waits between attempts when a Retry-After asks for more than the back-off; tests may speed it up. */
  sleep?: (ms: number) => Promise<void>;
}

export interface JsonRequest {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** Path and query below the base URL, from wire.ts. */
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  /** A form-encoded body instead of JSON: the OAuth token endpoint takes nothing else (RFC 6749 section 4.1.3). */
  form?: Record<string, string>;
  /** What the client is doing, for error messages: `starting the activation of acme/api`. */
  doing: string;
  /** What a 404 means here, e.g. `no operation op_1 for this sandbox`. */
  notFound?: string;
  /** A long-poll: the service may hold the answer this long, so the attempt's time limit grows by as much. */
  waitMs?: number;
  /** Aborts the request and any retry (the caller stopped waiting); the promise rejects with the reason. */
  signal?: AbortSignal;
}

export interface JsonResponse {
  status: number;
  body: unknown;
}

export interface HttpClient {
  request(req: JsonRequest): Promise<JsonResponse>;
  /** Closes kept-alive connections so the process can exit at once. */
  close(): void;
}

/** Bodies larger than this are refused: an overlay is bounded well below it. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

const require = createRequire(import.meta.url);
type HttpModule = typeof import("node:http");

class AttemptFailure extends Error {
  constructor(
    readonly failure: BatonError,
    readonly retryable: boolean,
    readonly retryAfterMs: number | undefined,
  ) {
    super(failure.message);
  }
}

class LocalTimeout extends Error {
  readonly code = "ETIMEDOUT";
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const base = new URL(options.baseUrl);
  const http: HttpModule = require(base.protocol === "https:" ? "node:https" : "node:http");
  let agent: HttpAgent | undefined;
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.policy };
  const log = options.log ?? SILENT_LOG;
  const pause = options.sleep ?? ((ms: number) => sleep(ms));
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const responseTimeoutMs = options.responseTimeoutMs ?? 30_000;
  const prefix = base.pathname.replace(/\/+$/, "");

  const attemptOnce = (req: JsonRequest, payload: string | undefined, contentType: string) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
      agent ??= new http.Agent({ keepAlive: true, maxSockets: 8 });
      const headers: Record<string, string> = {
        accept: "application/json",
        ...options.headers,
        ...req.headers,
      };
      if (payload !== undefined) {
        headers["content-type"] = contentType;
        headers["content-length"] = String(Buffer.byteLength(payload));
      }
      const outgoing = http.request(
        {
          protocol: base.protocol,
          hostname: base.hostname,
          port: base.port,
          path: `${prefix}${req.path}`,
          method: req.method,
          headers,
          agent,
          ...(req.signal ? { signal: req.signal } : {}),
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) outgoing.destroy(new Error("the answer is larger than 64 MiB"));
            else chunks.push(chunk);
          });
          res.on("end", () => {
            clearTimeout(deadline);
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              text: Buffer.concat(chunks).toString("utf8"),
            });
          });
          res.on("error", reject);
        },
      );
      const deadline = setTimeout(
        () => outgoing.destroy(new LocalTimeout("the service did not answer in time")),
        responseTimeoutMs + (req.waitMs ?? 0),
      );
      outgoing.on("socket", (socket) => {
        if (!socket.connecting) return;
        const timer = setTimeout(
          () => outgoing.destroy(new LocalTimeout("no connection in time")),
          connectTimeoutMs,
        );
        socket.once("connect", () => clearTimeout(timer));
        socket.once("close", () => clearTimeout(timer));
      });
      outgoing.on("error", (error) => {
        clearTimeout(deadline);
        reject(error);
      });
      outgoing.end(payload);
    });

  const request = async (req: JsonRequest): Promise<JsonResponse> => {
    const payload = req.form
      ? new URLSearchParams(req.form).toString()
      : req.body === undefined
        ? undefined
        : JSON.stringify(req.body);
    const contentType = req.form ? "application/x-www-form-urlencoded" : "application/json";
    let attempt = 0;
    const once = async (): Promise<JsonResponse> => {
      attempt++;
      const started = performance.now();
      let answer: Awaited<ReturnType<typeof attemptOnce>>;
      try {
        answer = await attemptOnce(req, payload, contentType);
      } catch (error) {
        if (req.signal?.aborted) throw req.signal.reason;
        const code = errorCode(error);
        log.debug(
          { method: req.method, path: req.path, attempt, error: code ?? "unknown" },
          "request failed",
        );
        throw new AttemptFailure(options.unreachable(req.doing, code, error), true, undefined);
      }
      const { status } = answer;
      log.debug(
        { method: req.method, path: req.path, attempt, status, ms: Math.round(performance.now() - started) },
        "request",
      );
      const body = parseBody(answer.text);
      if (status >= 200 && status < 300) return { status, body };
      const raw = isRetryableStatus(status) ? answer.headers[RETRY_AFTER_HEADER] : undefined;
      const retryAfterMs = parseRetryAfter(Array.isArray(raw) ? raw[0] : raw, Date.now());
      // The classifier says the wait (once): the service's reason, or this figure when the reason gives none.
      const failure = options.classify({
        status,
        body,
        doing: req.doing,
        notFound: req.notFound,
        retryAfterSeconds: retryAfterMs === undefined ? undefined : Math.ceil(retryAfterMs / 1000),
      });
      if (!isRetryableStatus(status)) throw new AttemptFailure(failure, false, undefined);
      // Waiting longer than the ceiling would stall the agent: the failure already says when to come back.
      if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs)
        throw new AttemptFailure(failure, false, undefined);
      throw new AttemptFailure(failure, true, retryAfterMs);
    };

    try {
      return await pRetry(once, {
        retries: policy.retries,
        minTimeout: policy.minBackoffMs,
        factor: 2,
        randomize: true,
        ...(req.signal ? { signal: req.signal } : {}),
        shouldRetry: ({ error }) => error instanceof AttemptFailure && error.retryable,
        onFailedAttempt: async ({ error, attemptNumber, retriesLeft, retryDelay }) => {
          if (!(error instanceof AttemptFailure) || !error.retryable || retriesLeft === 0) return;
          const extra = Math.max(0, (error.retryAfterMs ?? 0) - retryDelay);
          const delayMs = retryDelay + extra;
          log.debug({ method: req.method, path: req.path, attempt: attemptNumber, delayMs }, "retrying");
          options.onRetry?.({ attempt: attemptNumber, error: error.failure, delayMs });
          if (extra > 0) await pause(extra);
        },
      });
    } catch (error) {
      if (error instanceof AttemptFailure) throw error.failure;
      throw error;
    }
  };

  return {
    request,
    close() {
      agent?.destroy();
      agent = undefined;
    },
  };
}

function parseBody(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function errorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
