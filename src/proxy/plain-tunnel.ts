// Plain HTTP inside an opaque CONNECT tunnel (issue 35 C.17): once the tunnel's first bytes read as an HTTP/1.x
// request, the connection joins the proxy's own HTTP server, as a decrypted placeholder-path tunnel does, so that
// every request on it is parsed and judged, not only the first: its Host must name the tunnel's authority (else
// 421 `host_mismatch`, answered in the tunnel, nothing forwarded), the lease is checked again, and the method
// and operator rules apply. Each request is forwarded to the address the CONNECT was checked and dialled for.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ProxyContext } from "./context.js";
import { forwardRequest } from "./forward.js";
import type { Tunnel } from "./mitm.js";
import { hostHeaderNames } from "./net/http-head.js";
import { formatTarget } from "./policy/index.js";
import { finishRecord } from "./record.js";
import { allowedInTunnel, openTunnelRequest } from "./tunnel-request.js";
import { PROXY_ERRORS } from "./wire.js";

/** One request inside an opaque tunnel that carries plain HTTP. */
export async function handlePlainTunnelRequest(
  context: ProxyContext,
  tunnel: Tunnel,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const opened = await openTunnelRequest(context, tunnel, req, res, "http");
  if (!opened) return;
  const { started, record, refuse, lease, path } = opened;
  const { target } = tunnel;
  const authority = target.port === 80 ? formatTarget(target).replace(/:80$/, "") : formatTarget(target);
  const given = req.headers.host;
  if (given !== undefined && given.toLowerCase() !== authority) record.hostHeader = given;
  if (given !== undefined && !hostHeaderNames(given, target)) {
    return refuse(
      PROXY_ERRORS.hostMismatch,
      "endpoints",
      `the Host header ${given.slice(0, 260)} differs from ${target.host.host}:${target.port}, the tunnel's authority`,
    );
  }
  if (!allowedInTunnel(context, tunnel, opened)) return;
  const address = tunnel.addresses[0]!;
  forwardRequest(context, {
    req,
    res,
    record,
    started,
    lease,
    origin:
      target.host.kind === "name"
        ? { scheme: "http", host: target.host.host, port: target.port, path }
        : null,
    address,
    port: target.port,
    path,
    hostHeader: given ?? authority,
    tlsServername: null,
    scheme: "http",
    targetHost: target.host.host,
    finish: (done) => finishRecord(context, done),
  });
}
