// The first middleware of every request: a fresh request id (never the client's, so logs cannot be forged), the
// request-id header on every answer (errors included), and one debug line per request.
import { randomUUID } from "node:crypto";
import { createMiddleware } from "hono/factory";
import type { Logger } from "pino";
import { HEADERS } from "../../../transport/wire.js";
import type { ServerEnv } from "./surface.js";

export function requestContext(logger: Logger) {
  return createMiddleware<ServerEnv>(async (c, next) => {
    const requestId = randomUUID();
    c.set("requestId", requestId);
    await next();
    c.res.headers.set(HEADERS.requestId, requestId);
    logger.debug({ requestId, method: c.req.method, path: c.req.path, status: c.res.status }, "request");
  });
}
