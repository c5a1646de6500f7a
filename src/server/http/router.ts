// Classifies a request into a route (with path parameters) or a rejection, then runs it. Never throws: every
// failure becomes a JSON error body carrying the request id.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import { HEADERS, WIRE_ERRORS } from "../../transport/wire.js";
import { HttpError } from "./http-error.js";
import { errorResponse } from "./json.js";

export interface RouteContext {
  request: Request;
  url: URL;
  params: Record<string, string>;
  requestId: string;
}

export interface Route {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** `/ops/v1/operations/:id`; `:name` matches one non-empty segment. */
  pattern: string;
  handle(context: RouteContext): Promise<Response> | Response;
}

export type Handler = (request: Request) => Promise<Response>;

type Match = { route: Route; params: Record<string, string> } | { status: 404 | 405 };

export function matchRoute(routes: readonly Route[], method: string, pathname: string): Match {
  const segments = pathname.split("/");
  let pathMatched = false;
  for (const route of routes) {
    const params = matchPattern(route.pattern.split("/"), segments);
    if (!params) continue;
    pathMatched = true;
    if (route.method === method) return { route, params };
  }
  return { status: pathMatched ? 405 : 404 };
}

function matchPattern(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i]!;
    const got = segments[i]!;
    if (want.startsWith(":")) {
      if (got === "") return undefined;
      try {
        params[want.slice(1)] = decodeURIComponent(got);
      } catch {
        return undefined;
      }
    } else if (want !== got) return undefined;
  }
  return params;
}

export function createRouter(routes: readonly Route[], logger: Logger): Handler {
  return async (request) => {
    const requestId = randomUUID();
    const url = new URL(request.url);
    const match = matchRoute(routes, request.method, url.pathname);
    let response: Response;
    try {
      if ("status" in match) {
        throw match.status === 404
          ? new HttpError(404, WIRE_ERRORS.notFound, "no such route")
          : new HttpError(405, "method_not_allowed", `${request.method} is not allowed on this route`);
      }
      response = await match.route.handle({ request, url, params: match.params, requestId });
      response.headers.set(HEADERS.requestId, requestId);
    } catch (error) {
      if (error instanceof HttpError) {
        response = errorResponse(error, requestId);
      } else {
        // Log the error's name and message only: a stack or cause could quote a row holding a secret.
        const described = error instanceof Error ? `${error.name}: ${error.message}` : "non-Error thrown";
        logger.error({ requestId, err: described }, "request failed");
        response = errorResponse(
          new HttpError(500, WIRE_ERRORS.internal, "the service failed; retry later"),
          requestId,
        );
      }
    }
    logger.debug(
      { requestId, method: request.method, path: url.pathname, status: response.status },
      "request",
    );
    return response;
  };
}
