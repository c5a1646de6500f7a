// The OpenAPI 3.1 description of the operations transport and the admin API. Component schemas are generated
// from the same zod schemas the handler parses with, so the document cannot drift from the code;
// `openapi/baton-ops.json` is this function's output (scripts/generate-openapi.mjs writes it, a test compares).
import { z } from "zod";
import { OverlaySchema } from "../../envfile/overlay.js";
import {
  ActivationResultSchema,
  ADMIN_PATHS,
  CreateSandboxBodySchema,
  CreateSandboxResponseSchema,
  CreateTurnBodySchema,
  CreateTurnResponseSchema,
  DisconnectRepositoryBodySchema,
  ErrorBodySchema,
  HEADERS,
  MAX_WAIT_MS,
  ManagedStartupSchema,
  OkResponseSchema,
  OperationSchema,
  QUERY,
  ROUTE_PATTERNS,
  StartOperationBodySchema,
} from "../../transport/wire.js";
import { SeedDocumentSchema } from "../seed/schema.js";
import { CAPABILITY_COMPONENTS, capabilityPaths, PERSONAL_TOKEN_SCHEME } from "./capability.js";

// The handler always sends the current handoff shape; the wire schema keeps it open for older results.
const ServedOperationSchema = OperationSchema.extend({
  result: ActivationResultSchema.extend({ managedStartup: ManagedStartupSchema }).nullable(),
});

const schema = (type: z.ZodType, io: "input" | "output") => {
  const { $schema: _, ...rest } = z.toJSONSchema(type, { io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
};

const COMPONENTS = {
  Operation: schema(ServedOperationSchema, "output"),
  Overlay: schema(OverlaySchema, "output"),
  Error: schema(ErrorBodySchema, "output"),
  Ok: schema(OkResponseSchema, "output"),
  StartOperationBody: schema(StartOperationBodySchema, "input"),
  SeedDocument: schema(SeedDocumentSchema, "input"),
  CreateSandboxBody: schema(CreateSandboxBodySchema, "input"),
  CreateSandboxResponse: schema(CreateSandboxResponseSchema, "output"),
  CreateTurnBody: schema(CreateTurnBodySchema, "input"),
  CreateTurnResponse: schema(CreateTurnResponseSchema, "output"),
  DisconnectRepositoryBody: schema(DisconnectRepositoryBodySchema, "input"),
} as const;

export type ComponentName = keyof typeof COMPONENTS;

const ref = (name: ComponentName) => ({ $ref: `#/components/schemas/${name}` });
const body = (name: ComponentName, description: string) => ({
  description,
  content: { "application/json": { schema: ref(name) } },
});
const errors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [String(s), body("Error", ERROR_TEXT[s] ?? "refused")]));
const ERROR_TEXT: Record<number, string> = {
  400: "invalid_request, invalid_idempotency_key or invalid_repo",
  401: "invalid_token: turn token or lease missing, unknown, expired, or of different engagements",
  403: "rollout_disabled: the workspace has no repository-environments rollout",
  404: "not_found: no such thing, or not the caller's (never 403)",
  409: "idempotency_conflict, operation_not_succeeded or conflict",
};
const OPS_SECURITY = [{ turnToken: [], sandboxLease: [] }];
const ADMIN_SECURITY = [{ adminToken: [] }];
const toOpenApiPath = (pattern: string) => pattern.replace(/:([A-Za-z]+)/g, "{$1}");
const idParameter = { name: "id", in: "path", required: true, schema: { type: "string" } };

export function buildOpenApiDocument(): Record<string, unknown> {
  const adminPost = (summary: string, request: ComponentName, status: string, response: ComponentName) => ({
    post: {
      summary,
      security: ADMIN_SECURITY,
      requestBody: { required: true, ...body(request, summary) },
      responses: { [status]: body(response, "done"), ...errors(400, 401, 404, 409) },
    },
  });
  return {
    openapi: "3.1.0",
    info: {
      title: "baton serve: operations transport and admin API",
      version: "1.0.0",
      description:
        "The reference orchestrator's HTTP API. See README, section 'baton serve (reference orchestrator)'.",
    },
    paths: {
      [ROUTE_PATTERNS.health]: {
        get: { summary: "liveness probe", responses: { "200": body("Ok", "alive") } },
      },
      [ROUTE_PATTERNS.operations]: {
        post: {
          summary:
            "start an operation (env.activate); a repeated Idempotency-Key returns the first operation",
          security: OPS_SECURITY,
          parameters: [
            {
              name: HEADERS.idempotencyKey,
              in: "header",
              required: true,
              schema: { type: "string", pattern: "^[\\x21-\\x7e]{1,128}$" },
            },
          ],
          requestBody: { required: true, ...body("StartOperationBody", "what to run") },
          responses: {
            "202": body("Operation", "accepted (or the first result for this key)"),
            ...errors(400, 401, 403, 404, 409),
          },
        },
      },
      [toOpenApiPath(ROUTE_PATTERNS.operation)]: {
        get: {
          summary: "read an operation; with waitMs, wait until its state changes or the time passes",
          security: OPS_SECURITY,
          parameters: [
            idParameter,
            {
              name: QUERY.waitMs,
              in: "query",
              required: false,
              schema: { type: "integer", minimum: 0 },
              description: `capped at ${MAX_WAIT_MS}`,
            },
          ],
          responses: { "200": body("Operation", "the operation"), ...errors(400, 401, 403, 404) },
        },
      },
      [toOpenApiPath(ROUTE_PATTERNS.operationOverlay)]: {
        get: {
          summary:
            "the overlay document a succeeded activation produced; only for the sandbox that started it",
          security: OPS_SECURITY,
          parameters: [idParameter],
          responses: {
            "200": body("Overlay", "the overlay (secrets as placeholders)"),
            ...errors(401, 403, 404, 409),
          },
        },
      },
      [ADMIN_PATHS.seed]: adminPost("load a seed document", "SeedDocument", "200", "Ok"),
      [ADMIN_PATHS.sandboxes]: adminPost(
        "create a sandbox lease and a turn",
        "CreateSandboxBody",
        "201",
        "CreateSandboxResponse",
      ),
      [ADMIN_PATHS.turns]: adminPost("issue a follow-up turn", "CreateTurnBody", "201", "CreateTurnResponse"),
      [ADMIN_PATHS.disconnectRepository]: adminPost(
        "disconnect a repository",
        "DisconnectRepositoryBody",
        "200",
        "Ok",
      ),
      ...capabilityPaths(),
    },
    components: {
      schemas: { ...COMPONENTS, ...CAPABILITY_COMPONENTS },
      securitySchemes: {
        turnToken: { type: "http", scheme: "bearer", description: "the turn authorisation token" },
        sandboxLease: { type: "apiKey", in: "header", name: HEADERS.sandboxLease },
        adminToken: { type: "apiKey", in: "header", name: HEADERS.adminToken },
        personalToken: PERSONAL_TOKEN_SCHEME,
      },
    },
  };
}
