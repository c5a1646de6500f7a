// Capability requests, the sandbox's side (turn token + lease, rollout gate): record one (or report evidence on
// the matching one), read it with its e-mail delivery state, report an outcome, queue failed e-mail again.
import { createRoute, z } from "@hono/zod-openapi";
import { type EmailDelivery, HEADERS, IdempotencyKeySchema } from "../../../transport/wire.js";
import type { Caller } from "../../domain/auth/authenticate.js";
import { redeliver, viewRequest } from "../../domain/capability/manage.js";
import { recordCapabilityRequest, reportEvidence } from "../../domain/capability/record.js";
import type { CapabilityRuntime } from "../../domain/capability/runtime.js";
import { jsonBody, KiB } from "../http/json-body.js";
import { createSurface } from "../http/surface.js";
import { errorResponses, jsonContent, pathParam, Schemas as S, SECURITY } from "../openapi/schemas.js";
import type { OpsDeps } from "./deps.js";
import { sandboxAuth } from "./sandbox-auth.js";

const ERRORS = {
  400: "invalid_request (the reason names the field and never echoes the value), secret_hosts_mismatch, invalid_repo, invalid_idempotency_key",
  401: "invalid_token",
  403: "rollout_disabled",
  404: "not_found (also for a caller outside the workspace: never 403), no_matching_request",
  409: "idempotency_conflict, request_closed (dismissed or verified)",
  413: "payload_too_large: the body is over the route's limit",
  415: "unsupported_media_type: the body is not application/json",
};
const pick = <K extends keyof typeof ERRORS>(...statuses: K[]) =>
  errorResponses(Object.fromEntries(statuses.map((s) => [s, ERRORS[s]])) as Record<K, string>);
const idParams = z.object({ id: pathParam() });

/** Tells the sandbox whether owners' e-mail goes out now or waits in the outbox for an SMTP relay. */
function emailDelivery(deps: OpsDeps): EmailDelivery {
  return deps.capability?.smtpUrl ? "sending" : "queued";
}

export function capabilityRoutes(deps: OpsDeps, rt: CapabilityRuntime) {
  const app = createSurface<{ caller: Caller }>();
  const auth = sandboxAuth(deps);

  app.openapi(
    createRoute({
      method: "post",
      path: "/capability-requests",
      summary:
        "record a missing-access request (exact kind+target first, then the semantic matcher: 3 s budget, >= 0.90), or report evidence on the matching one",
      security: SECURITY.sandbox,
      // A 4,096-character target and an 8,192-character reason, every character JSON-escaped (6 bytes), still fit.
      middleware: [auth, ...jsonBody("capability request", 128 * KiB)] as const,
      request: {
        headers: z.object({ [HEADERS.idempotencyKey]: IdempotencyKeySchema.optional() }),
        body: { required: true, ...jsonContent(S.RecordCapabilityBody, "the request") },
      },
      responses: {
        201: jsonContent(
          S.RecordCapabilityResponse,
          "a new request (owners/admins are e-mailed); a repeated Idempotency-Key answers the first status and body",
        ),
        200: jsonContent(S.RecordCapabilityResponse, "matched an existing request"),
        ...pick(400, 401, 403, 404, 409, 413, 415),
      },
    }),
    async (c) => {
      const key = c.req.valid("header")[HEADERS.idempotencyKey] ?? null;
      const { status, response } = await recordCapabilityRequest(rt, c.var.caller, c.req.valid("json"), key);
      const answer = { ...response, emailDelivery: emailDelivery(deps) };
      return status === 201 ? c.json(answer, 201) : c.json(answer, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/capability-requests/{id}",
      summary: "a request with its e-mail delivery state (recipients masked)",
      security: SECURITY.sandbox,
      middleware: [auth] as const,
      request: { params: idParams },
      responses: { 200: jsonContent(S.CapabilityRequestView, "the request"), ...pick(401, 403, 404) },
    }),
    async (c) =>
      c.json(
        {
          ...(await viewRequest(rt, c.var.caller.workspaceId, c.req.valid("param").id)),
          emailDelivery: emailDelivery(deps),
        },
        200,
      ),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/capability-requests/{id}/evidence",
      summary:
        "report an outcome: authentication (401) / permission (403) after access -> repair_needed; network/provider change nothing",
      security: SECURITY.sandbox,
      middleware: [auth, ...jsonBody("evidence", 4 * KiB)] as const,
      request: {
        params: idParams,
        body: { required: true, ...jsonContent(S.EvidenceBody, "the outcome") },
      },
      responses: {
        200: jsonContent(S.EvidenceResponse, "recorded"),
        ...pick(400, 401, 403, 404, 409, 413, 415),
      },
    }),
    async (c) =>
      c.json(await reportEvidence(rt, c.var.caller, c.req.valid("param").id, c.req.valid("json")), 200),
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/capability-requests/{id}/redeliver",
      summary: "queue failed notification deliveries again, for the recipients that did not get them",
      security: SECURITY.sandbox,
      middleware: [auth] as const,
      request: { params: idParams },
      responses: { 200: jsonContent(S.RedeliverResponse, "requeued"), ...pick(401, 403, 404) },
    }),
    async (c) =>
      c.json(
        {
          ...(await redeliver(rt, c.var.caller.workspaceId, c.req.valid("param").id)),
          emailDelivery: emailDelivery(deps),
        },
        200,
      ),
  );
  return app;
}
