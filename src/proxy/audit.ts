// One audit line per decision (pino JSON): who asked (sandbox, workspace), for what (method, host, port), what
// the policy saw and did (resolved and dialled addresses, rule, decision, reason), TLS SNI where seen, bytes each
// way, duration, and which placeholders were swapped or left (secret ids, never values).
import type { Logger } from "pino";
import type { ProxyErrorCode } from "./wire.js";

/** `connection`: a refusal made for the connection itself (a cap), before any request was read. */
export type AuditKind = "http" | "connect" | "mitm" | "self" | "connection";

export interface AuditRecord {
  requestId: string;
  kind: AuditKind;
  sandbox: string | null;
  workspace: string | null;
  method: string;
  host: string;
  port: number | null;
  /** The Host header, when it differs from the authority the request was routed on. */
  hostHeader?: string;
  resolved: string[];
  dialled: string | null;
  rule: string;
  decision: "allow" | "deny" | "error";
  reason: string;
  error?: ProxyErrorCode;
  status?: number;
  sni?: string | null;
  bytesUp: number;
  bytesDown: number;
  durationMs: number;
  substitution?: {
    swapped: string[];
    unapproved: string[];
    unknown: number;
    /** Secret values found in the response and replaced by their placeholders. */
    scrubbed: number;
  };
}

export type AuditSink = (record: AuditRecord) => void;

/** Audit lines go out at info level whatever BATON_LOG_LEVEL says for the debug log. */
export function createAuditSink(logger: Logger): AuditSink {
  return (record) => logger.info({ audit: record }, "decision");
}
