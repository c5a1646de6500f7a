// The placeholder path: the proxy answers the CONNECT itself, terminates TLS with a leaf for the CONNECT host
// signed by its own CA, and passes each inner request on over TLS to the checked address (verifying the
// upstream's certificate for that host). A request is refused (421 host_mismatch) unless the CONNECT authority,
// the TLS SNI and the inner Host agree; a placeholder is swapped only where its approved destination matches.
// The decrypted connection joins the proxy's own HTTP server (`accept`), so its header time-out, keep-alive
// time-out and drain apply inside tunnels too; the TLS handshake itself must finish within `headersMs`.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { TLSSocket } from "node:tls";
import type { AuditRecord } from "./audit.js";
import type { ProxyContext } from "./context.js";
import { forwardRequest } from "./forward.js";
import { parseAuthority, type Target } from "./policy/index.js";
import { finishRecord } from "./record.js";
import { allowedInTunnel, openTunnelRequest } from "./tunnel-request.js";
import { PROXY_ERRORS } from "./wire.js";

export interface MitmSession {
  client: Socket;
  /** The lease the CONNECT carried: every request inside the tunnel is checked against it again. */
  lease: string;
  target: Target;
  addresses: string[];
  connectRecord: AuditRecord;
}

export interface Tunnel extends MitmSession {
  sni: string | null;
  /** Plain HTTP in an opaque tunnel (plain-tunnel.ts), not a decrypted placeholder-path one. */
  plain: boolean;
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

/** Why authority, SNI and Host do not name one host (a missing Host is the authority's), or null. */
export function describeDisagreement(
  target: Target,
  sni: string | null,
  hostHeader: string | undefined,
): { reason: string; sni: boolean } | null {
  const authority = `${target.host.host}:${target.port}`;
  if (sni === null)
    return { reason: `the TLS hello named no server; it must name ${target.host.host}`, sni: true };
  if (norm(sni) !== target.host.host) {
    return { reason: `the TLS hello names ${sni.slice(0, 253)} in a tunnel to ${authority}`, sni: true };
  }
  if (!endpointsAgree(target, sni, hostHeader ?? authority)) {
    return { reason: `the Host header ${hostHeader!.slice(0, 260)} differs from ${authority}`, sni: false };
  }
  return null;
}

export interface Mitm {
  start(session: MitmSession): void;
  /** Serves an opaque tunnel whose first bytes (given back here) are plain HTTP, request by request. */
  startPlain(session: MitmSession, first: Buffer): void;
  /** The tunnel a decrypted connection belongs to, or undefined for a connection made to the proxy itself. */
  tunnelOf(socket: Socket): Tunnel | undefined;
}

export function createMitm(context: ProxyContext, accept: (socket: Socket) => void): Mitm {
  const tunnels = new WeakMap<Socket, Tunnel>();
  return {
    tunnelOf: (socket) => tunnels.get(socket),
    startPlain(session, first) {
      if (session.client.destroyed) return;
      if (first.length > 0) session.client.unshift(first);
      tunnels.set(session.client, { ...session, sni: null, plain: true });
      accept(session.client);
      session.client.resume();
    },
    start(session) {
      const host = session.target.host.host;
      // A client that never sends its ClientHello (or never finishes the handshake) is cut off.
      const handshake = setTimeout(() => session.client.destroy(), context.config.timeouts.headersMs);
      session.client.once("close", () => clearTimeout(handshake));
      context.ca.leaves
        .contextFor(host)
        .then((secureContext) => {
          if (session.client.destroyed) return;
          const tls = new TLSSocket(session.client, {
            isServer: true,
            secureContext,
            ALPNProtocols: ["http/1.1"],
          });
          tls.on("error", () => tls.destroy());
          tls.once("secure", () => {
            clearTimeout(handshake);
            const sni = (tls as TLSSocket & { servername?: string | false }).servername;
            tunnels.set(tls, { ...session, sni: typeof sni === "string" ? sni : null, plain: false });
            accept(tls);
          });
        })
        .catch((error: unknown) => {
          context.logger.error({ err: String(error) }, "could not issue a leaf certificate");
          session.client.destroy();
        });
    },
  };
}

/** One request inside a placeholder-path tunnel. */
export async function handleTunnelRequest(
  context: ProxyContext,
  tunnel: Tunnel,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const opened = await openTunnelRequest(context, tunnel, req, res, "mitm");
  if (!opened) return;
  const { started, record, refuse, lease, path } = opened;
  const { target } = tunnel;
  const hostHeader = req.headers.host;
  if (hostHeader !== undefined && norm(hostHeader) !== norm(`${target.host.host}:${target.port}`)) {
    if (norm(hostHeader) !== target.host.host || target.port !== 443) record.hostHeader = hostHeader;
  }
  // A placeholder can be swapped on this path, so the request must be for the host that was checked, under
  // every name it gives: otherwise the client's Host (or the name its TLS asked for) would reach the checked
  // address with the secret of another host. A wrong SNI spoils every request of the tunnel: it is closed.
  const disagreement = describeDisagreement(target, tunnel.sni, hostHeader);
  if (disagreement) {
    return refuse(PROXY_ERRORS.hostMismatch, "endpoints", disagreement.reason, disagreement.sni);
  }
  // Methods and operator rules apply to each request the proxy can see inside the tunnel.
  if (!allowedInTunnel(context, tunnel, opened)) return;
  forwardRequest(context, {
    req,
    res,
    record,
    started,
    lease,
    origin: { scheme: "https", host: target.host.host, port: target.port, path },
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
