// The operations-transport client: start an activation, read or long-poll an operation, fetch its overlay.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { z } from "zod";
import { formatIssuePath } from "../config/zod-error.js";
import { type Overlay, OverlaySchema } from "../envfile/overlay.js";
import { ServiceError } from "../errors.js";
import { DEFAULT_RETRY_POLICY, type HttpEngine, type RetryPolicy, sendJson } from "./http.js";
import type { OpsSettings } from "./settings.js";
import { createAgent } from "./undici.js";
import {
  HEADERS,
  MAX_WAIT_MS,
  type Operation,
  OperationSchema,
  PATHS,
  QUERY,
  type StartOperationBody,
} from "./wire.js";

export interface OpsClientOptions {
  policy?: Partial<RetryPolicy>;
  /** Makes idempotency keys; tests pass a fixed one. */
  newIdempotencyKey?: () => string;
  onRetry?: HttpEngine["onRetry"];
}

export interface OpsClient {
  /** POSTs the activation with one idempotency key for all attempts. 200 (a repeat) and 201 both succeed. */
  startActivation(repository: string, options?: { idempotencyKey?: string }): Promise<Operation>;
  /** Reads an operation; with `waitMs` the service holds the answer until the state changes or time passes. */
  getOperation(id: string, options?: { waitMs?: number; signal?: AbortSignal }): Promise<Operation>;
  getOverlay(id: string): Promise<Overlay>;
  close(): Promise<void>;
}

export function createOpsClient(settings: OpsSettings, options: OpsClientOptions = {}): OpsClient {
  const dispatcher = createAgent({
    connect: { timeout: 10_000 },
    // A long-poll holds the headers back for up to MAX_WAIT_MS.
    headersTimeout: MAX_WAIT_MS + 30_000,
    bodyTimeout: 60_000,
    keepAliveTimeout: 4_000,
  });
  const engine: HttpEngine = {
    baseUrl: settings.baseUrl,
    dispatcher,
    policy: { ...DEFAULT_RETRY_POLICY, ...options.policy },
    sleep: (ms) => sleep(ms),
    onRetry: options.onRetry,
  };
  const auth = {
    [HEADERS.authorization]: `Bearer ${settings.turnToken}`,
    [HEADERS.sandboxLease]: settings.sandboxLease,
  };
  const newKey = options.newIdempotencyKey ?? (() => randomUUID());

  return {
    async startActivation(repository, opts = {}) {
      const body: StartOperationBody = { kind: "env.activate", repository };
      const res = await sendJson(engine, {
        method: "POST",
        path: PATHS.operations,
        headers: { ...auth, [HEADERS.idempotencyKey]: opts.idempotencyKey ?? newKey() },
        body,
        doing: `starting the activation of ${repository}`,
      });
      return readBody(OperationSchema, res.body, "operation");
    },
    async getOperation(id, opts = {}) {
      const wait =
        opts.waitMs === undefined
          ? ""
          : `?${QUERY.waitMs}=${Math.min(MAX_WAIT_MS, Math.max(0, Math.round(opts.waitMs)))}`;
      const res = await sendJson(engine, {
        method: "GET",
        path: `${PATHS.operation(id)}${wait}`,
        headers: auth,
        doing: `reading operation ${id}`,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      return readBody(OperationSchema, res.body, "operation");
    },
    async getOverlay(id) {
      const res = await sendJson(engine, {
        method: "GET",
        path: PATHS.operationOverlay(id),
        headers: auth,
        doing: `fetching the overlay of operation ${id}`,
      });
      return readBody(OverlaySchema, res.body, "overlay");
    },
    close: () => dispatcher.close(),
  };
}

function readBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue ? `${formatIssuePath(issue.path)}: ${issue.message}` : "no JSON body";
  throw new ServiceError(
    "service_error",
    `the service answered with an ${what} this client cannot read (${where}); upgrade baton or the service`,
    {
      cause: parsed.error,
    },
  );
}
