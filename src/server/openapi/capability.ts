// The capability-request part of the OpenAPI document: the sandbox's ops routes and the workspace routes for
// members (personal access token). Component schemas come from the wire's zod schemas, like the rest.
import { z } from "zod";
import {
  CAPABILITY_ROUTE_PATTERNS,
  CapabilityListResponseSchema,
  CapabilityRequestViewSchema,
  DismissResponseSchema,
  EvidenceBodySchema,
  HEADERS,
  PutSecretBodySchema,
  PutSecretResponseSchema,
  RecordCapabilityBodySchema,
  RecordCapabilityResponseSchema,
  RedeliverResponseSchema,
} from "../../transport/wire.js";

const schema = (type: z.ZodType, io: "input" | "output") => {
  const { $schema: _, ...rest } = z.toJSONSchema(type, { io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
};

export const CAPABILITY_COMPONENTS = {
  RecordCapabilityBody: schema(RecordCapabilityBodySchema, "input"),
  RecordCapabilityResponse: schema(RecordCapabilityResponseSchema, "output"),
  EvidenceBody: schema(EvidenceBodySchema, "input"),
  EvidenceResponse: schema(
    z.object({
      request: RecordCapabilityResponseSchema.shape.request,
      evidence: z.object({ outcome: EvidenceBodySchema.shape.outcome, changed: z.boolean() }),
    }),
    "output",
  ),
  CapabilityRequestView: schema(CapabilityRequestViewSchema, "output"),
  RedeliverResponse: schema(RedeliverResponseSchema, "output"),
  CapabilityList: schema(CapabilityListResponseSchema, "output"),
  DismissResponse: schema(DismissResponseSchema, "output"),
  PutSecretBody: schema(PutSecretBodySchema, "input"),
  PutSecretResponse: schema(PutSecretResponseSchema, "output"),
} as const;

export const PERSONAL_TOKEN_SCHEME = {
  type: "http",
  scheme: "bearer",
  description: "a member's personal access token, btn_<secret> (seeded per member with `token`)",
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const body = (name: string, description: string) => ({
  description,
  content: { "application/json": { schema: ref(name) } },
});
const ERRORS: Record<number, string> = {
  400: "invalid_request (the reason names the field and never echoes the value), secret_hosts_mismatch, invalid_repo",
  401: "invalid_token",
  403: "rollout_disabled, or forbidden for a member who is not an owner or admin",
  404: "not_found (also for a caller outside the workspace: never 403), no_matching_request",
  409: "idempotency_conflict, request_closed (dismissed or verified)",
};
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), body("Error", ERRORS[s]!)]));
const path = (pattern: string) => pattern.replace(/:([A-Za-z]+)/g, "{$1}");
const params = (...names: string[]) =>
  names.map((name) => ({ name, in: "path", required: true, schema: { type: "string" } }));
const OPS = [{ turnToken: [], sandboxLease: [] }];
const MEMBER = [{ personalToken: [] }];
const P = CAPABILITY_ROUTE_PATTERNS;

export function capabilityPaths(): Record<string, unknown> {
  return {
    [P.requests]: {
      post: {
        summary:
          "record a missing-access request (exact kind+target first, then the semantic matcher: 3 s budget, >= 0.90), or report evidence on the matching one",
        security: OPS,
        parameters: [
          { name: HEADERS.idempotencyKey, in: "header", required: false, schema: { type: "string" } },
        ],
        requestBody: { required: true, ...body("RecordCapabilityBody", "the request") },
        responses: {
          "201": body("RecordCapabilityResponse", "a new request (owners/admins are e-mailed)"),
          "200": body(
            "RecordCapabilityResponse",
            "matched an existing request (or a repeated Idempotency-Key)",
          ),
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
    [path(P.request)]: {
      get: {
        summary: "a request with its e-mail delivery state (recipients masked)",
        security: OPS,
        parameters: params("id"),
        responses: { "200": body("CapabilityRequestView", "the request"), ...errors(401, 403, 404) },
      },
    },
    [path(P.evidence)]: {
      post: {
        summary:
          "report an outcome: authentication (401) / permission (403) after access -> repair_needed; network/provider change nothing",
        security: OPS,
        parameters: params("id"),
        requestBody: { required: true, ...body("EvidenceBody", "the outcome") },
        responses: { "200": body("EvidenceResponse", "recorded"), ...errors(400, 401, 403, 404, 409) },
      },
    },
    [path(P.redeliver)]: {
      post: {
        summary: "queue failed notification deliveries again, for the recipients that did not get them",
        security: OPS,
        parameters: params("id"),
        responses: { "200": body("RedeliverResponse", "requeued"), ...errors(401, 403, 404) },
      },
    },
    [path(P.list)]: {
      get: {
        summary: "capability requests of a repository (workspace members)",
        security: MEMBER,
        parameters: params("workspaceId", "repoId"),
        responses: { "200": body("CapabilityList", "the requests"), ...errors(401, 403, 404) },
      },
    },
    [path(P.dismiss)]: {
      post: {
        summary: "dismiss (Not now); owners and admins; stays in force on rediscovery",
        security: MEMBER,
        parameters: params("workspaceId", "repoId", "requestId"),
        responses: { "200": body("DismissResponse", "dismissed"), ...errors(401, 403, 404, 409) },
      },
    },
    [path(P.secret)]: {
      put: {
        summary:
          "write a repository secret (owners and admins); with capabilityRequestId its allowed hosts must authorise the request's target; rotating a bound secret satisfies a repair again",
        security: MEMBER,
        parameters: params("workspaceId", "repoId", "name"),
        requestBody: {
          required: true,
          ...body("PutSecretBody", "value, allowed hosts, optional request id"),
        },
        responses: {
          "201": body("PutSecretResponse", "created (never echoes the value)"),
          "200": body("PutSecretResponse", "replaced (never echoes the value)"),
          ...errors(400, 401, 403, 404, 409),
        },
      },
    },
  };
}
