// The sandbox's capability-request calls over the operations transport (the I/O edge of src/capability; the
// pure modules never import this). The same HTTP client, retry policy and idempotency rules as activation.
import { randomUUID } from "node:crypto";
import type { Log } from "../log-level.js";
import { createHttpClient, opsHttpOptions, readBody } from "../transport/index.js";
import type { OpsSettings } from "../transport/settings.js";
import {
  CAPABILITY_PATHS,
  CapabilityRequestViewSchema,
  HEADERS,
  type RecordCapabilityBody,
  RecordCapabilityResponseSchema,
  RedeliverResponseSchema,
} from "../transport/wire.js";

export type CapabilityClient = ReturnType<typeof createCapabilityClient>;

export function createCapabilityClient(settings: OpsSettings, options: { log?: Log } = {}) {
  const http = createHttpClient(opsHttpOptions(settings, options.log ? { log: options.log } : {}));
  const noRequest = (id: string) =>
    `the service has no capability request ${id} in this sandbox's workspace (ids look like cr_…; \`baton env request-capability\` prints them)`;
  return {
    async record(body: RecordCapabilityBody) {
      const res = await http.request({
        method: "POST",
        path: CAPABILITY_PATHS.requests,
        headers: { [HEADERS.idempotencyKey]: randomUUID() },
        body,
        doing: `recording a capability request for ${body.repository}`,
        notFound: body.evidence
          ? `no capability request for ${body.capability} ${body.target} in ${body.repository} to report evidence on (record it first, with --reason)`
          : `the workspace has no repository ${body.repository}`,
      });
      return readBody(RecordCapabilityResponseSchema, res.body, "a capability request");
    },
    async view(id: string) {
      const res = await http.request({
        method: "GET",
        path: CAPABILITY_PATHS.request(id),
        doing: `reading capability request ${id}`,
        notFound: noRequest(id),
      });
      return readBody(CapabilityRequestViewSchema, res.body, "a capability request");
    },
    async redeliver(id: string) {
      const res = await http.request({
        method: "POST",
        path: CAPABILITY_PATHS.redeliver(id),
        headers: { [HEADERS.idempotencyKey]: randomUUID() },
        body: {},
        doing: `redelivering the e-mail of capability request ${id}`,
        notFound: noRequest(id),
      });
      return readBody(RedeliverResponseSchema, res.body, "a capability request");
    },
    close: () => http.close(),
  };
}
