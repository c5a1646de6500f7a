// The operations-transport client: start an activation, read or long-poll an operation, fetch its overlay.
import { randomUUID } from "node:crypto";
import type { z } from "zod";
import { formatIssuePath } from "../config/zod-error.js";
import { type Overlay, OverlaySchema } from "../envfile/overlay.js";
import { ServiceError } from "../errors.js";
import type { Log } from "../log-level.js";
import {
  createHttpClient,
  type HttpClient,
  type HttpClientOptions,
  type RetryPolicy,
} from "../net/http-client.js";
import { mapHttpFailure } from "./errors.js";
import { describeBaseUrl, type OpsSettings } from "./settings.js";
import {
  HEADERS,
  MAX_WAIT_MS,
  type Operation,
  OperationSchema,
  PATHS,
  PROXY_REFUSALS_PATH,
  ProxyRefusalsResponseSchema,
  type ProxyRefusalWire,
  QUERY,
  StartOperationAnswerSchema,
  type StartOperationBody,
} from "./wire.js";

export interface OpsClientOptions {
  policy?: Partial<RetryPolicy>;
  /** Makes idempotency keys; tests pass a fixed one. */
  newIdempotencyKey?: () => string;
  onRetry?: HttpClientOptions["onRetry"];
  log?: Log;
}

/** The answer to starting an activation: the operation, and the overlay when the service sent it along. */
export interface StartedActivation {
  operation: Operation;
  /** Present when the operation already succeeded and the service carried its overlay (no GET needed). */
  overlay: Overlay | undefined;
}

export interface OpsClient {
  /**
   * POSTs the activation with one idempotency key for all attempts. 200 (a repeat), 201 and 202 all succeed; the
   * answer may already be terminal (the service answers with the finished operation when it can), and a
   * succeeded one carries its overlay from services that send it.
   */
  startActivation(repository: string, options?: { idempotencyKey?: string }): Promise<StartedActivation>;
  /** Reads an operation; with `waitMs` the service holds the answer until the state changes or time passes. */
  getOperation(id: string, options?: { waitMs?: number; signal?: AbortSignal }): Promise<Operation>;
  getOverlay(id: string): Promise<Overlay>;
  /** The egress proxy's latest refusals for this sandbox (oldest first); one attempt, no retry. */
  getProxyRefusals(): Promise<ProxyRefusalWire[]>;
  close(): Promise<void>;
}

/** The options every client of the operations service shares: credentials, refusals, naming the service. */
export function opsHttpOptions(
  settings: OpsSettings,
  extra: Pick<HttpClientOptions, "policy" | "onRetry" | "log" | "responseTimeoutMs">,
): HttpClientOptions {
  return {
    baseUrl: settings.baseUrl,
    headers: {
      [HEADERS.authorization]: `Bearer ${settings.turnToken}`,
      [HEADERS.sandboxLease]: settings.sandboxLease,
    },
    classify: mapHttpFailure,
    unreachable: (doing, code, cause) =>
      new ServiceError(
        "network",
        `could not reach the operations service at ${describeBaseUrl(settings.baseUrl)} while ${doing}${code ? ` (${code})` : ""}. ` +
          "Check that BATON_OPS_URL names the running service and try again.",
        { cause },
      ),
    ...extra,
  };
}

export function createOpsClient(settings: OpsSettings, options: OpsClientOptions = {}): OpsClient {
  const http: HttpClient = createHttpClient(
    opsHttpOptions(settings, {
      ...(options.policy ? { policy: options.policy } : {}),
      ...(options.onRetry ? { onRetry: options.onRetry } : {}),
      ...(options.log ? { log: options.log } : {}),
      responseTimeoutMs: 60_000,
    }),
  );
  const newKey = options.newIdempotencyKey ?? (() => randomUUID());

  return {
    async startActivation(repository, opts = {}) {
      const body: StartOperationBody = { kind: "env.activate", repository };
      const res = await http.request({
        method: "POST",
        path: PATHS.operations,
        headers: { [HEADERS.idempotencyKey]: opts.idempotencyKey ?? newKey() },
        body,
        doing: `starting the activation of ${repository}`,
        notFound: `the workspace has no repository ${repository}`,
      });
      const { overlay, ...operation } = readBody(StartOperationAnswerSchema, res.body, "an operation");
      return { operation, overlay };
    },
    async getOperation(id, opts = {}) {
      const waitMs =
        opts.waitMs === undefined ? undefined : Math.min(MAX_WAIT_MS, Math.max(0, Math.round(opts.waitMs)));
      const res = await http.request({
        method: "GET",
        path: `${PATHS.operation(id)}${waitMs === undefined ? "" : `?${QUERY.waitMs}=${waitMs}`}`,
        doing: `reading operation ${id}`,
        notFound: `the service has no operation ${id} for this sandbox's engagement (ids look like op_…; \`baton env activate\` prints them)`,
        ...(waitMs === undefined ? {} : { waitMs }),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      return readBody(OperationSchema, res.body, "an operation");
    },
    async getOverlay(id) {
      const res = await http.request({
        method: "GET",
        path: PATHS.operationOverlay(id),
        doing: `fetching the overlay of operation ${id}`,
        notFound: `the service has no overlay of operation ${id} for this sandbox (only the sandbox that started an operation can fetch it)`,
      });
      return readBody(OverlaySchema, res.body, "an overlay");
    },
    async getProxyRefusals() {
      // Extra information only: one attempt, no back-off, so it never slows a command down.
      const once = createHttpClient(
        opsHttpOptions(settings, { policy: { retries: 0 }, responseTimeoutMs: 10_000 }),
      );
      try {
        const res = await once.request({
          method: "GET",
          path: PROXY_REFUSALS_PATH,
          doing: "reading the egress proxy's refusals",
        });
        return readBody(ProxyRefusalsResponseSchema, res.body, "a refusal list").refusals;
      } finally {
        once.close();
      }
    },
    close: async () => http.close(),
  };
}

/** `what` with its article: "an operation". */
export function readBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue ? `${formatIssuePath(issue.path)}: ${issue.message}` : "no JSON body";
  throw new ServiceError(
    "service_error",
    `the service answered with ${what} this client cannot read (${where}); upgrade baton or the service`,
    { cause: parsed.error },
  );
}
