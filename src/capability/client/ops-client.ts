// The sandbox's capability-request calls over the operations transport (the I/O edge of src/capability; the
// pure modules never import this). Same retry policy and idempotency rules as the activation client.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent } from "undici";
import type { z } from "zod";
import { ServiceError } from "../../errors.js";
import { DEFAULT_RETRY_POLICY, type HttpEngine, sendJson } from "../../transport/http.js";
import type { OpsSettings } from "../../transport/settings.js";
import {
  CAPABILITY_PATHS,
  CapabilityRequestViewSchema,
  HEADERS,
  type RecordCapabilityBody,
  RecordCapabilityResponseSchema,
  RedeliverResponseSchema,
} from "../../transport/wire.js";

export function createCapabilityClient(settings: OpsSettings) {
  const dispatcher = new Agent({ connect: { timeout: 10_000 }, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const engine: HttpEngine = {
    baseUrl: settings.baseUrl,
    dispatcher,
    policy: DEFAULT_RETRY_POLICY,
    sleep: (ms) => sleep(ms),
  };
  const auth = {
    [HEADERS.authorization]: `Bearer ${settings.turnToken}`,
    [HEADERS.sandboxLease]: settings.sandboxLease,
  };
  const read = <S extends z.ZodType>(schema: S, body: unknown): z.infer<S> => {
    const parsed = schema.safeParse(body);
    if (parsed.success) return parsed.data;
    throw new ServiceError(
      "service_error",
      "the service answered with a capability request this client cannot read; upgrade baton or the service",
    );
  };
  return {
    async record(body: RecordCapabilityBody) {
      const res = await sendJson(engine, {
        method: "POST",
        path: CAPABILITY_PATHS.requests,
        headers: { ...auth, [HEADERS.idempotencyKey]: randomUUID() },
        body,
        doing: `recording a capability request for ${body.repository}`,
      });
      return read(RecordCapabilityResponseSchema, res.body);
    },
    async view(id: string) {
      const res = await sendJson(engine, {
        method: "GET",
        path: CAPABILITY_PATHS.request(id),
        headers: auth,
        doing: `reading capability request ${id}`,
      });
      return read(CapabilityRequestViewSchema, res.body);
    },
    async redeliver(id: string) {
      const res = await sendJson(engine, {
        method: "POST",
        path: CAPABILITY_PATHS.redeliver(id),
        headers: { ...auth, [HEADERS.idempotencyKey]: randomUUID() },
        body: {},
        doing: `redelivering the e-mail of capability request ${id}`,
      });
      return read(RedeliverResponseSchema, res.body);
    },
    close: () => dispatcher.close(),
  };
}
