// The placeholder path: the proxy answers the CONNECT itself, terminates TLS with a leaf for the CONNECT host
// signed by its own CA, and passes each inner request on over TLS to the checked address (verifying the
// upstream's certificate for that host). A placeholder is swapped only when the CONNECT authority, the TLS SNI
// and the inner Host agree and the request's origin matches an approved destination.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { TLSSocket } from "node:tls";
import type { AuditRecord } from "./audit.js";
import type { ProxyContext } from "./context.js";
import { forwardRequest } from "./forward.js";
import type { LeasePolicy } from "./lease/policy.js";
import { decideAddress, parseAuthority, type Target } from "./policy/index.js";
import { finishRecord, startRecord, withLease } from "./record.js";
import { renderRefusal } from "./refusal.js";

export interface MitmSession {
  client: Socket;
  lease: LeasePolicy;
  target: Target;
  addresses: string[];
  connectRecord: AuditRecord;
}

interface TunnelState extends MitmSession {
  sni: string | null;
}

const norm = (host: string) => host.toLowerCase().replace(/\.$/, "");

/** Whether authority, SNI and inner Host name the same host and port. */
export function endpointsAgree(target: Target, sni: string | null, hostHeader: string | undefined): boolean {
  if (sni === null || hostHeader === undefined) return false;
  const host = target.host.host;
  if (norm(sni) !== host) return false;
  const inner = parseAuthority(hostHeader, 443);
  return inner.ok && inner.value.host.host === host && inner.value.port === target.port;
}

export function createMitm(context: ProxyContext): { start(session: MitmSession): void; inner: Server } {
  const tunnels = new WeakMap<object, TunnelState>();
  const inner = createServer({ keepAliveTimeout: 30_000 }, (req, res) =>
    handleInner(context, tunnels, req, res),
  );
  inner.on("clientError", (_error, socket) => socket.destroy());
  return {
    inner,
    start(session) {
      const host = session.target.host.host;
      context.ca.leaves
        .contextFor(host)
        .then((secureContext) => {
          const tls = new TLSSocket(session.client, {
            isServer: true,
            secureContext,
            ALPNProtocols: ["http/1.1"],
          });
          tls.on("error", () => tls.destroy());
          tls.once("secure", () => {
            const sni = (tls as TLSSocket & { servername?: string | false }).servername;
            tunnels.set(tls, { ...session, sni: typeof sni === "string" ? sni : null });
            inner.emit("connection", tls);
          });
        })
        .catch((error: unknown) => {
          context.logger.error({ err: String(error) }, "could not issue a leaf certificate");
          session.client.destroy();
        });
    },
  };
}

function handleInner(
  context: ProxyContext,
  tunnels: WeakMap<object, TunnelState>,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const started = Date.now();
  const tunnel = tunnels.get(req.socket);
  if (!tunnel) {
    res.destroy();
    return;
  }
  const { target, lease } = tunnel;
  const record = startRecord(context, "mitm", req.method ?? "GET", target.host.host, target.port);
  withLease(record, lease);
  record.sni = tunnel.sni;
  record.resolved = tunnel.connectRecord.resolved;
  const hostHeader = req.headers.host;
  if (hostHeader !== undefined && norm(hostHeader) !== norm(`${target.host.host}:${target.port}`)) {
    if (norm(hostHeader) !== target.host.host || target.port !== 443) record.hostHeader = hostHeader;
  }
  const path = req.url ?? "/";
  // Methods and operator rules apply to each request the proxy can see inside the tunnel.
  const verdict = decideAddress(
    { target, method: record.method },
    tunnel.addresses[0]!,
    context.policy,
    context.ownAddresses(),
  ).verdict;
  if (!verdict.allowed) {
    const refusal = renderRefusal(verdict.error, {
      host: record.host,
      reason: verdict.reason,
      requestId: record.requestId,
    });
    res.writeHead(refusal.status, refusal.headers).end(refusal.body);
    Object.assign(record, {
      decision: "deny",
      rule: verdict.rule,
      reason: verdict.reason,
      error: verdict.error.code,
      status: verdict.error.status,
      durationMs: Date.now() - started,
    });
    finishRecord(context, record);
    return;
  }
  record.rule = verdict.rule;
  record.reason = endpointsAgree(target, tunnel.sni, hostHeader)
    ? verdict.reason
    : `${verdict.reason}; authority, SNI and Host disagree, so no placeholder is swapped`;
  forwardRequest(context, {
    req,
    res,
    record,
    started,
    lease,
    origin: endpointsAgree(target, tunnel.sni, hostHeader)
      ? { scheme: "https", host: target.host.host, port: target.port, path }
      : null,
    address: tunnel.addresses[0]!,
    port: target.port,
    path,
    hostHeader: hostHeader ?? `${target.host.host}:${target.port}`,
    tlsServername: target.host.host,
    scheme: "https",
    targetHost: target.host.host,
    finish: (done) => finishRecord(context, done),
  });
}
