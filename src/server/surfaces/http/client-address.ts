// Who sent the request, for everything that throttles or logs by source: the socket's peer as @hono/node-server
// hands it to the app (`c.env.incoming`), or, when that peer is a front named by `baton serve --trusted-proxy`,
// the client X-Forwarded-For names (src/throttle/client-address.ts). A request with no socket (tests through
// app.request) has no address.
import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { clientAddressOf, type TrustedProxies } from "../../../throttle/client-address.js";
import { HEADERS } from "../../../transport/wire.js";
import type { ServerEnv } from "./surface.js";

/** The socket's peer address; never a header. */
function peerAddressOf(c: Context): string | undefined {
  const env = c.env as { incoming?: IncomingMessage } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

/** The first middleware after the request id: decides the client's address once for every later reader. */
export function identifyClient(trusted: TrustedProxies) {
  return createMiddleware<ServerEnv>(async (c, next) => {
    const address = clientAddressOf(peerAddressOf(c), c.req.header(HEADERS.forwardedFor), trusted);
    if (address !== undefined) c.set("clientAddress", address);
    await next();
  });
}

/** The client's address as `identifyClient` decided it; the socket's peer on an app mounted without it. */
export function requestSourceOf(c: Context): string | undefined {
  return (c.get("clientAddress") as string | undefined) ?? peerAddressOf(c);
}
