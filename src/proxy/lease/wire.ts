// The internal route between `baton proxy` and `baton serve`: the proxy asks which sandbox, workspace and secrets a
// lease stands for, and reports its refusals. Authenticated with the operator's shared proxy token. Both sides
// import this file; no other file spells these paths or headers.
import * as z from "zod";
import { type ProxyRefusalWire, ProxyRefusalWireSchema } from "../../transport/wire.js";

export const PROXY_INTERNAL_BASE_PATH = "/internal/v1/proxy";
export const PROXY_INTERNAL_PATHS = {
  lease: `${PROXY_INTERNAL_BASE_PATH}/lease`,
  refusals: `${PROXY_INTERNAL_BASE_PATH}/refusals`,
} as const;

/** The header carrying `BATON_PROXY_TOKEN` (set for both `baton serve` and `baton proxy`). */
export const PROXY_TOKEN_HEADER = "baton-proxy-token";
export const PROXY_TOKEN_ENV = "BATON_PROXY_TOKEN";

export const LeaseLookupBodySchema = z.object({ lease: z.string().min(1).max(512) });

export const LeaseSecretSchema = z.object({
  id: z.string(),
  /** `baton-secret-<id>`, what the sandbox holds. */
  placeholder: z.string(),
  /** The real value: only ever in this answer and the proxy's memory. */
  value: z.string(),
  /** Approved destinations as stored (`api.acme.test`, `https://api.acme.test:8443/v2/`). */
  destinations: z.array(z.string()),
  /** The only headers (lower case) the placeholder is swapped in; absent: Authorization and the operator's. */
  headers: z.array(z.string().regex(/^[a-z0-9-]{1,64}$/)).optional(),
});

export const LeasePolicyResponseSchema = z.object({
  sandboxId: z.string(),
  workspaceId: z.string(),
  engagementId: z.string(),
  leaseExpiresAt: z.string(),
  secrets: z.array(LeaseSecretSchema),
});
export type LeasePolicyResponse = z.infer<typeof LeasePolicyResponseSchema>;

/** One refusal the proxy made for a sandbox, as `op get` and the disclosure show it. Never a secret value. */
export const ProxyRefusalSchema = ProxyRefusalWireSchema;
export type ProxyRefusal = ProxyRefusalWire;

export const ReportRefusalsBodySchema = z.object({
  refusals: z.array(ProxyRefusalSchema.extend({ sandboxId: z.string() })).max(500),
});
export type ReportRefusalsBody = z.infer<typeof ReportRefusalsBodySchema>;
