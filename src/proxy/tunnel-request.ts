// What every request inside a tunnel starts with, on the placeholder path (mitm.ts) and in a plain-HTTP opaque
// tunnel (plain-tunnel.ts) alike: its own audit record, a refusal that answers it in the tunnel, the tunnel's lease
// checked again (it may have expired since the CONNECT; cached), and a path in origin form.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuditRecord } from "./audit.js";
import { checkLease } from "./authenticate.js";
import type { ProxyContext } from "./context.js";
import type { LeasePolicy } from "./lease/policy.js";
import type { Tunnel } from "./mitm.js";
import { decideAddress } from "./policy/index.js";
import { finishRefusal, startRecord, withLease } from "./record.js";
import { renderRefusal } from "./refusal.js";
import { PROXY_ERRORS, type ProxyError } from "./wire.js";

/** Answers the request with a refusal and writes its audit line; `close` ends the tunnel after it. */
export type RefuseInTunnel = (error: ProxyError, rule: string, reason: string, close?: boolean) => void;

export interface TunnelRequest {
  started: number;
  record: AuditRecord;
  refuse: RefuseInTunnel;
  lease: LeasePolicy;
  /** The request's path and query (origin form). */
  path: string;
}

/**
 * The method and operator rules for this request, judged on the address the tunnel was checked for: false when
 * they refuse it (and it is answered); otherwise the record names the rule that allowed it.
 */
export function allowedInTunnel(context: ProxyContext, tunnel: Tunnel, request: TunnelRequest): boolean {
  const { record } = request;
  const verdict = decideAddress(
    { target: tunnel.target, method: record.method },
    tunnel.addresses[0]!,
    context.policy,
    context.ownAddresses(),
  ).verdict;
  if (!verdict.allowed) {
    request.refuse(verdict.error, verdict.rule, verdict.reason);
    return false;
  }
  record.rule = verdict.rule;
  record.reason = verdict.reason;
  return true;
}

/** The request's record, refusal and checked lease; null when it was refused already (and answered). */
export async function openTunnelRequest(
  context: ProxyContext,
  tunnel: Tunnel,
  req: IncomingMessage,
  res: ServerResponse,
  kind: "mitm" | "http",
): Promise<TunnelRequest | null> {
  const started = Date.now();
  const { target } = tunnel;
  const record = startRecord(context, kind, req.method ?? "GET", target.host.host, target.port);
  if (kind === "mitm") record.sni = tunnel.sni;
  record.resolved = tunnel.connectRecord.resolved;
  const refuse: RefuseInTunnel = (error, rule, reason, close = false) => {
    const refusal = renderRefusal(error, { host: record.host, reason, requestId: record.requestId });
    res.writeHead(refusal.status, close ? { ...refusal.headers, connection: "close" } : refusal.headers);
    res.end(refusal.body);
    finishRefusal(context, record, { error, rule, reason, started });
  };
  const lease = await checkLease(tunnel.lease, context, tunnel.client.remoteAddress);
  if (!lease.ok) {
    refuse(lease.error, "lease", lease.reason, true);
    return null;
  }
  withLease(record, lease.policy);
  const path = req.url ?? "/";
  if (!path.startsWith("/")) {
    refuse(
      PROXY_ERRORS.invalidTarget,
      "target",
      `inside a tunnel to ${target.host.host} requests name a path (origin-form), not ${path.slice(0, 64)}`,
    );
    return null;
  }
  return { started, record, refuse, lease: lease.policy, path };
}
