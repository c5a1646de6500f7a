// The Node adapter: @hono/node-server's request listener on node:http. Headers are bounded by Node's parser
// (MAX_HEADER_BYTES for the request line and all headers together; beyond it Node answers 431 and closes).
// Routing uses the request target only: a Host header that is not a plain host[:port] (one that would move the
// path, such as `x/admin/v1/seed?`) is refused with 400 before any route runs, as RFC 9112 section 3.2 requires.
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import { getRequestListener, RequestError } from "@hono/node-server";
import { WIRE_ERRORS } from "../../../transport/wire.js";
import { HttpError } from "./http-error.js";

export const MAX_HEADER_BYTES = 16 * 1024;

export function createNodeServer(fetch: (request: Request) => Response | Promise<Response>): Server {
  const listener = getRequestListener(fetch, {
    errorHandler: (error) => {
      const refusal =
        error instanceof RequestError
          ? new HttpError(
              400,
              WIRE_ERRORS.invalidRequest,
              `the Host header or request target is malformed (${error.message.toLowerCase()}); send Host as host[:port] and a path starting with /`,
            )
          : new HttpError(500, WIRE_ERRORS.internal, "the service failed; retry later");
      return refusal.toResponse(randomUUID());
    },
  });
  return createServer({ maxHeaderSize: MAX_HEADER_BYTES }, listener);
}
