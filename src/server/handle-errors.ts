// What the composed app answers when a route throws or no route matches: always `{error, reason, requestId}`.
// A path that exists under another method is 405 with `allow`; anything unexpected is a logged 500 that says
// nothing about the failure (its message could quote a row holding a secret).
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Logger } from "pino";
import { NO_SUCH_ROUTE, WIRE_ERRORS } from "../transport/wire.js";
import { DomainError } from "./domain/errors.js";
import { apiErrorOf } from "./surfaces/api/errors.js";
import { HttpError, invalidRequest, notFound } from "./surfaces/http/http-error.js";
import type { ServerEnv } from "./surfaces/http/surface.js";

/** Turns hono's own exceptions (the JSON validator, the media-type gate) into our refusals. */
function fromHonoException(error: HTTPException, c: Context<ServerEnv>): HttpError {
  const what = c.get("bodyName") ?? "the body";
  switch (error.status) {
    case 400:
      return invalidRequest(`${what} is not valid JSON`);
    case 413:
      return new HttpError(413, WIRE_ERRORS.payloadTooLarge, `${what} is too large; send less`);
    case 415:
      return new HttpError(
        415,
        WIRE_ERRORS.unsupportedMediaType,
        "send the body as JSON with content-type: application/json",
      );
    default:
      return new HttpError(error.status, WIRE_ERRORS.invalidRequest, error.message || "refused");
  }
}

export function handleError(logger: Logger): ErrorHandler<ServerEnv> {
  return (error, c) => {
    const requestId = c.get("requestId");
    if (error instanceof HttpError) return error.toResponse(requestId);
    // Each surface maps the domain's refusals in its own table (its onError); one that reaches here came from a
    // sub-app without one (the MCP endpoint's bearer check is the API's own), so it is answered as the API would.
    if (error instanceof DomainError) return apiErrorOf(error).toResponse(requestId);
    if (error instanceof HTTPException) return fromHonoException(error, c).toResponse(requestId);
    // Log the error's name and message only: a stack or cause could quote a row holding a secret.
    logger.error({ requestId, err: `${error.name}: ${error.message}` }, "request failed");
    return new HttpError(500, WIRE_ERRORS.internal, "the service failed; retry later").toResponse(requestId);
  };
}

/** Who answers a page's 404 instead of the JSON one: GET and HEAD of a path at or under `base`. */
export interface PagesNotFound {
  base: string;
  answer: (c: Context) => Promise<Response>;
}

/** 404, or 405 naming the methods the path has (`methodsOf` comes from the composed app's routes). */
export function handleNotFound(
  methodsOf: (path: string) => readonly string[],
  pages?: PagesNotFound,
): NotFoundHandler<ServerEnv> {
  return (c) => {
    const requestId = c.get("requestId");
    const allowed = methodsOf(c.req.path);
    const path = c.req.path;
    if (
      allowed.length === 0 &&
      pages &&
      (c.req.method === "GET" || c.req.method === "HEAD") &&
      (path === pages.base || path.startsWith(`${pages.base}/`))
    )
      return pages.answer(c);
    if (allowed.length === 0) return notFound(NO_SUCH_ROUTE).toResponse(requestId);
    return new HttpError(
      405,
      WIRE_ERRORS.methodNotAllowed,
      `${c.req.method} is not allowed on this route; use ${allowed.join(" or ")}`,
      { allow: allowed.join(", ") },
    ).toResponse(requestId);
  };
}
