// The forward proxy on Node's own http/net/tls: absolute-form requests and CONNECT on one listening socket.
// `drain` stops accepting, lets open exchanges and tunnels finish for up to the given time, then ends the rest.
import { randomBytes } from "node:crypto";
import { createServer, Agent as HttpAgent, type Server } from "node:http";
import { Agent as HttpsAgent } from "node:https";
import type { Socket } from "node:net";
import { createSecureContext } from "node:tls";
import type { ProxyCa, ProxyContext, ProxyDeps } from "./context.js";
import { handleConnect } from "./handle-connect.js";
import { handleHttpRequest } from "./handle-http.js";
import { createMitm, handleTunnelRequest } from "./mitm.js";
import { compilePolicy } from "./policy/index.js";
import { rawRefusal, renderRefusal } from "./refusal.js";
import { PROXY_ERRORS } from "./wire.js";

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
  const { headersMs } = deps.config.timeouts;
  const server = createServer({
    keepAliveTimeout: 30_000,
    requestTimeout: 0,
    headersTimeout: headersMs,
    // How often the server looks for connections past headersMs (Node's default is every 30 s).
    connectionsCheckingInterval: Math.min(5_000, Math.max(100, Math.floor(headersMs / 4))),
  });
  // Decrypted placeholder-path connections are served by this same server (its time-outs and drain apply).
  const mitm = createMitm(context, (tls) => server.emit("connection", tls));
  server.on("connection", (socket: Socket) => {
    // Headers and body go out as separate writes: with Nagle on, the second waits for the client's delayed ACK.
    socket.setNoDelay(true);
    sockets.add(socket);
    socket.once("close", () => {
      sockets.delete(socket);
      busy.delete(socket);
    });
  });
  const crash = (error: unknown) =>
    context.logger.error({ err: error instanceof Error ? error.message : String(error) }, "request failed");
  server.on("request", (req, res) => {
    busy.add(req.socket);
    res.once("close", () => busy.delete(req.socket));
    const tunnel = mitm.tunnelOf(req.socket);
    const handled = tunnel
      ? handleTunnelRequest(context, tunnel, req, res)
      : handleHttpRequest(context, req, res);
    handled.catch((error: unknown) => {
      crash(error);
      res.destroy();
    });
  });
  server.on("connect", (req, socket: Socket, head: Buffer) => {
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
    busy.add(socket);
    handleConnect(context, req, socket, head, (session) => mitm.start(session)).catch((error: unknown) => {
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
