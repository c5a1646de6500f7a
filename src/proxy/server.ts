// The forward proxy on Node's own http/net/tls: absolute-form requests and CONNECT on one listening socket.
// `drain` stops accepting, lets open exchanges and tunnels finish for up to the given time, then ends the rest.
import { randomBytes } from "node:crypto";
import { createServer, Agent as HttpAgent, type IncomingHttpHeaders, type Server } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { Socket } from "node:net";
import { createSecureContext } from "node:tls";
import { leaseOf } from "./authenticate.js";
import type { ProxyCa, ProxyContext, ProxyDeps } from "./context.js";
import { handleConnect } from "./handle-connect.js";
import { handleHttpRequest } from "./handle-http.js";
import { createConnectionLedger } from "./limits.js";
import { createMitm, handleTunnelRequest } from "./mitm.js";
import { handlePlainTunnelRequest } from "./plain-tunnel.js";
import { compilePolicy } from "./policy/index.js";
import { finishRefusal, startRecord } from "./record.js";
import { rawRefusal, renderRefusal } from "./refusal.js";
import { PROXY_ERRORS, type ProxyError } from "./wire.js";

export interface EgressProxy {
  server: Server;
  context: ProxyContext;
  /** Replaces the CA (after `baton proxy rotate-ca`); new tunnels use the new one. */
  setCa(ca: ProxyCa): void;
  /** Open client connections (tunnels and requests in flight). */
  openConnections(): number;
  drain(graceMs: number): Promise<{ ended: number }>;
}

export function createProxy(deps: ProxyDeps): EgressProxy {
  const context: ProxyContext = {
    ...deps,
    policy: compilePolicy(deps.config),
    substituteHeaders: new Set(deps.config.substituteHeaders.map((h) => h.toLowerCase())),
    httpAgent: new HttpAgent({ keepAlive: true, scheduling: "lifo", noDelay: true }),
    httpsAgent: new HttpsAgent({
      keepAlive: true,
      scheduling: "lifo",
      noDelay: true,
      // One context for every upstream connection. Given as `ca`, the ~150 roots were parsed again for each
      // new connection and joined into the agent's pool key on every request (a third of a millisecond each).
      ...(deps.upstreamCa.length > 0
        ? { secureContext: createSecureContext({ ca: [...deps.upstreamCa] }) }
        : {}),
    }),
    newRequestId: sequentialIds(),
  };
  const busy = new Set<Socket>();
  const sockets = new Set<Socket>();
  const { headersMs, closeGraceMs } = deps.config.timeouts;
  const ledger = createConnectionLedger<Socket>(deps.config.limits);
  /** Connections refused at accept: whatever they send later is not served. */
  const refused = new WeakSet<Socket>();
  const server = createServer({
    keepAliveTimeout: 30_000,
    requestTimeout: 0,
    headersTimeout: headersMs,
    // How often the server looks for connections past headersMs (Node's default is every 30 s).
    connectionsCheckingInterval: Math.min(5_000, Math.max(100, Math.floor(headersMs / 4))),
  });
  // Decrypted placeholder-path connections are served by this same server (its time-outs and drain apply).
  const mitm = createMitm(context, (socket) => server.emit("connection", socket));
  // A flood past a cap gets one audit line per second per code, each saying how many went unlined before it:
  // the refusals themselves must not fill the audit log's disk.
  const capLines = new Map<string, { at: number; unlined: number }>();
  const refuseConnection = (socket: Socket, error: ProxyError, reason: string, host = "(none)") => {
    const record = startRecord(context, "connection", "(connection)", host, null);
    const refusal = renderRefusal(error, { host, reason, requestId: record.requestId });
    if (socket.writable) socket.end(rawRefusal(refusal));
    destroyAfterGrace(socket, closeGraceMs);
    const now = Date.now();
    const last = capLines.get(error.code);
    if (last && now - last.at < 1_000) {
      last.unlined += 1;
      return;
    }
    capLines.set(error.code, { at: now, unlined: 0 });
    const unlined = last?.unlined ? `; ${last.unlined} more refused since the last line` : "";
    finishRefusal(context, record, { error, rule: "limits", reason: `${reason}${unlined}`, started: now });
  };
  server.on("connection", (socket: Socket) => {
    // Headers and body go out as separate writes: with Nagle on, the second waits for the client's delayed ACK.
    socket.setNoDelay(true);
    sockets.add(socket);
    // Whoever ended the connection (a 408, a refusal), a client that never reads nor closes its side must not
    // keep the handle: it is destroyed after a short grace.
    socket.once("finish", () => destroyAfterGrace(socket, closeGraceMs));
    socket.once("close", () => {
      sockets.delete(socket);
      busy.delete(socket);
      ledger.release(socket);
    });
    // A decrypted tunnel is the same TCP connection as its CONNECT, counted then.
    if (mitm.tunnelOf(socket)) return;
    if (!ledger.admit(socket)) {
      refused.add(socket);
      socket.on("error", () => socket.destroy());
      refuseConnection(
        socket,
        PROXY_ERRORS.connectionLimit,
        `the proxy holds ${deps.config.limits.maxConnections} connections, its limit`,
      );
    }
  });
  /** The per-lease cap, checked when a request or CONNECT names its lease (the lease is checked later). */
  const overLeaseLimit = (socket: Socket, headers: IncomingHttpHeaders): string | null => {
    const lease = leaseOf(headers);
    if (lease === null || ledger.claim(socket, lease)) return null;
    return `this lease holds ${ledger.heldBy(lease)} connections through the proxy, the limit per lease`;
  };
  const crash = (error: unknown) =>
    context.logger.error({ err: error instanceof Error ? error.message : String(error) }, "request failed");
  server.on("request", (req, res) => {
    if (refused.has(req.socket)) {
      req.socket.destroy();
      return;
    }
    busy.add(req.socket);
    res.once("close", () => busy.delete(req.socket));
    const tunnel = mitm.tunnelOf(req.socket);
    const overLimit = tunnel ? null : overLeaseLimit(req.socket, req.headers);
    if (overLimit !== null) {
      const record = startRecord(context, "http", req.method ?? "GET", hostOf(req.url), null);
      const error = PROXY_ERRORS.leaseConnectionLimit;
      const refusal = renderRefusal(error, {
        host: record.host,
        reason: overLimit,
        requestId: record.requestId,
      });
      req.resume();
      res.writeHead(refusal.status, { ...refusal.headers, connection: "close" }).end(refusal.body);
      finishRefusal(context, record, { error, rule: "limits", reason: overLimit, started: Date.now() });
      return;
    }
    const handled = !tunnel
      ? handleHttpRequest(context, req, res)
      : tunnel.plain
        ? handlePlainTunnelRequest(context, tunnel, req, res)
        : handleTunnelRequest(context, tunnel, req, res);
    handled.catch((error: unknown) => {
      crash(error);
      res.destroy();
    });
  });
  server.on("connect", (req, socket: Socket, head: Buffer) => {
    if (refused.has(socket)) {
      socket.destroy();
      return;
    }
    if (mitm.tunnelOf(socket)) {
      // A tunnel inside a tunnel would leave the host this one was checked and audited for.
      const refusal = renderRefusal(PROXY_ERRORS.invalidTarget, {
        host: req.url ?? "(none)",
        reason: "CONNECT inside a tunnel",
        requestId: context.newRequestId(),
      });
      socket.end(rawRefusal(refusal));
      return;
    }
    const overLimit = overLeaseLimit(socket, req.headers);
    if (overLimit !== null) {
      refuseConnection(socket, PROXY_ERRORS.leaseConnectionLimit, overLimit, hostOf(req.url));
      return;
    }
    busy.add(socket);
    handleConnect(context, req, socket, head, mitm).catch((error: unknown) => {
      crash(error);
      socket.destroy();
    });
  });
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    const status =
      error.code === "HPE_HEADER_OVERFLOW"
        ? "431 Request Header Fields Too Large"
        : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
          ? "408 Request Timeout"
          : "400 Bad Request";
    if (socket.writable) socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\n\r\n`);
    else socket.destroy();
    // A client that never reads keeps its receive window shut and never closes: end() alone held the handle.
    destroyAfterGrace(socket as Socket, closeGraceMs);
  });

  return {
    server,
    context,
    setCa: (ca) => {
      context.ca = ca;
    },
    openConnections: () => busy.size,
    async drain(graceMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (busy.size > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        server.closeIdleConnections();
      }
      const ended = sockets.size;
      for (const socket of sockets) socket.destroy();
      await closed;
      context.httpAgent.destroy();
      context.httpsAgent.destroy();
      await deps.refusals?.flush();
      return { ended };
    },
  };
}

/** Destroys the socket once the grace has passed, unless it closed by then. */
function destroyAfterGrace(socket: Socket, graceMs: number): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), graceMs);
  timer.unref();
  socket.once("close", () => clearTimeout(timer));
}

/** The host a request or CONNECT names, for the audit line of a refusal made before it is parsed. */
function hostOf(url: string | undefined): string {
  const text = (url ?? "").slice(0, 300);
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(text)?.[1] ?? text;
  return authority.replace(/^.*@/, "").replace(/:\d+$/, "") || "(none)";
}

/**
 * Request ids: a random prefix per run and a counter (`prq_` and 16 hex digits). Unique within a run and unlikely
 * to repeat across runs; they name audit lines, never grant anything, so they need no fresh randomness each.
 */
function sequentialIds(): () => string {
  let prefix = randomBytes(4).toString("hex");
  let next = 0;
  return () => {
    if (next > 0xffffffff) {
      prefix = randomBytes(4).toString("hex");
      next = 0;
    }
    return `prq_${prefix}${(next++).toString(16).padStart(8, "0")}`;
  };
}
