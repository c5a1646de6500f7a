// The wire's zod schemas under the names the OpenAPI document gives them (`#/components/schemas/<name>`), and
// the pieces every route definition shares: the error body, its per-status texts, and the security schemes.
// Routes validate with these same objects, so the document cannot drift from what the handler accepts. Names are
// zod's own `.meta({id})`, which zod-to-openapi reads: `.openapi()` exists only on schemas built after
// @hono/zod-openapi was imported, and the wire's schemas are built before.
import { z } from "@hono/zod-openapi";
import { OverlaySchema } from "../../../envfile/overlay.js";
import {
  ActivationResultSchema,
  AnswerTurnBodySchema,
  AnswerTurnResponseSchema,
  CapabilityListResponseSchema,
  CapabilityRequestViewSchema,
  CreateSandboxBodySchema,
  CreateSandboxResponseSchema,
  CreateTokenBodySchema,
  CreateTokenResponseSchema,
  CreateTurnBodySchema,
  CreateTurnResponseSchema,
  DisconnectRepositoryBodySchema,
  DismissResponseSchema,
  ErrorBodySchema,
  EvidenceBodySchema,
  HEADERS,
  ManagedStartupSchema,
  OkResponseSchema,
  OperationSchema,
  ProxyRefusalsResponseSchema,
  PutSecretBodySchema,
  PutSecretResponseSchema,
  RecordCapabilityBodySchema,
  RecordCapabilityResponseSchema,
  RedeliverResponseSchema,
  SandboxCopyOutBodySchema,
  SandboxEventBodySchema,
  SandboxExecBodySchema,
  SandboxExecResponseSchema,
  SandboxListResponseSchema,
  SandboxSweepBodySchema,
  SandboxSweepResponseSchema,
  SandboxTransitionResponseSchema,
  SandboxViewSchema,
  SetBillingBodySchema,
  SetPlanBodySchema,
  StartOperationBodySchema,
} from "../../../transport/wire.js";
import { SeedDocumentSchema } from "../../domain/seed/schema.js";

// The handler always sends the current handoff shape; the wire schema keeps it open for older results.
const ServedOperationSchema = OperationSchema.extend({
  result: ActivationResultSchema.extend({ managedStartup: ManagedStartupSchema }).nullable(),
});

const Overlay = OverlaySchema.meta({ id: "Overlay" });

export const Schemas = {
  Error: ErrorBodySchema.meta({ id: "Error" }),
  Ok: OkResponseSchema.meta({ id: "Ok" }),
  Operation: ServedOperationSchema.meta({ id: "Operation" }),
  // StartOperationAnswerSchema (wire.ts) with the served handoff shape and the named overlay: present when the
  // state is succeeded (the route's description says so).
  StartOperationAnswer: ServedOperationSchema.extend({ overlay: Overlay.optional() }).meta({
    id: "StartOperationAnswer",
  }),
  Overlay,
  StartOperationBody: StartOperationBodySchema.meta({ id: "StartOperationBody" }),
  SeedDocument: SeedDocumentSchema.meta({ id: "SeedDocument" }),
  CreateSandboxBody: CreateSandboxBodySchema.meta({ id: "CreateSandboxBody" }),
  CreateSandboxResponse: CreateSandboxResponseSchema.meta({ id: "CreateSandboxResponse" }),
  CreateTurnBody: CreateTurnBodySchema.meta({ id: "CreateTurnBody" }),
  CreateTurnResponse: CreateTurnResponseSchema.meta({ id: "CreateTurnResponse" }),
  DisconnectRepositoryBody: DisconnectRepositoryBodySchema.meta({ id: "DisconnectRepositoryBody" }),
  RecordCapabilityBody: RecordCapabilityBodySchema.meta({ id: "RecordCapabilityBody" }),
  RecordCapabilityResponse: RecordCapabilityResponseSchema.meta({ id: "RecordCapabilityResponse" }),
  EvidenceBody: EvidenceBodySchema.meta({ id: "EvidenceBody" }),
  EvidenceResponse: z
    .object({
      request: RecordCapabilityResponseSchema.shape.request,
      evidence: z.object({ outcome: EvidenceBodySchema.shape.outcome, changed: z.boolean() }),
    })
    .meta({ id: "EvidenceResponse" }),
  CapabilityRequestView: CapabilityRequestViewSchema.meta({ id: "CapabilityRequestView" }),
  RedeliverResponse: RedeliverResponseSchema.meta({ id: "RedeliverResponse" }),
  CapabilityList: CapabilityListResponseSchema.meta({ id: "CapabilityList" }),
  DismissResponse: DismissResponseSchema.meta({ id: "DismissResponse" }),
  PutSecretBody: PutSecretBodySchema.meta({ id: "PutSecretBody" }),
  PutSecretResponse: PutSecretResponseSchema.meta({ id: "PutSecretResponse" }),
  CreateTokenBody: CreateTokenBodySchema.meta({ id: "CreateTokenBody" }),
  CreateTokenResponse: CreateTokenResponseSchema.meta({ id: "CreateTokenResponse" }),
  SetBillingBody: SetBillingBodySchema.meta({ id: "SetBillingBody" }),
  SetPlanBody: SetPlanBodySchema.meta({ id: "SetPlanBody" }),
  ProxyRefusals: ProxyRefusalsResponseSchema.meta({ id: "ProxyRefusals" }),
  Sandbox: SandboxViewSchema.meta({ id: "Sandbox" }),
  SandboxList: SandboxListResponseSchema.meta({ id: "SandboxList" }),
  SandboxExecBody: SandboxExecBodySchema.meta({ id: "SandboxExecBody" }),
  SandboxCopyOutBody: SandboxCopyOutBodySchema.meta({ id: "SandboxCopyOutBody" }),
  SandboxExecResponse: SandboxExecResponseSchema.meta({ id: "SandboxExecResponse" }),
  SandboxEventBody: SandboxEventBodySchema.meta({ id: "SandboxEventBody" }),
  SandboxTransitionResponse: SandboxTransitionResponseSchema.meta({ id: "SandboxTransitionResponse" }),
  SandboxSweepBody: SandboxSweepBodySchema.meta({ id: "SandboxSweepBody" }),
  SandboxSweepResponse: SandboxSweepResponseSchema.meta({ id: "SandboxSweepResponse" }),
  AnswerTurnBody: AnswerTurnBodySchema.meta({ id: "AnswerTurnBody" }),
  AnswerTurnResponse: AnswerTurnResponseSchema.meta({ id: "AnswerTurnResponse" }),
} as const;

/** `{content: application/json}` of a named schema, for a request body or a response. */
export function jsonContent<S extends z.ZodType>(schema: S, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** Error responses for the given statuses; `texts` says which error codes each one carries on this surface. */
export function errorResponses<S extends number>(texts: Record<S, string>) {
  const out = {} as Record<S, ReturnType<typeof jsonContent<typeof Schemas.Error>>>;
  for (const [status, text] of Object.entries(texts) as [string, string][])
    out[Number(status) as S] = jsonContent(Schemas.Error, text);
  return out;
}

/** Security requirement names; the schemes themselves are registered once in openapi/document.ts. */
export const SECURITY = {
  sandbox: [{ turnToken: [], sandboxLease: [] }],
  admin: [{ adminToken: [] }],
  member: [{ personalToken: [] }],
};

export const SECURITY_SCHEMES = {
  turnToken: { type: "http", scheme: "bearer", description: "the turn authorisation token" },
  sandboxLease: { type: "apiKey", in: "header", name: HEADERS.sandboxLease },
  adminToken: { type: "apiKey", in: "header", name: HEADERS.adminToken },
  personalToken: {
    type: "http",
    scheme: "bearer",
    description: "a member's personal access token, btn_<secret> (seeded per member with `token`)",
  },
} as const;

/** A path parameter: one non-empty segment. */
export const pathParam = () => z.string().min(1);
