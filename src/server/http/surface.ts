// A surface is one OpenAPIHono sub-app (ops, admin, members, ...). Its routes carry their OpenAPI definition, and
// every validation failure becomes the same refusal as any other: an HttpError naming the field, never the value.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { z } from "zod";
import { formatIssuePath } from "../../config/zod-error.js";
import { HEADERS, WIRE_ERRORS } from "../../transport/wire.js";
import { HttpError, invalidRequest } from "./http-error.js";

/** What every request carries through the middleware: its id, and the name of its body once one is read. */
export interface ServerVariables {
  requestId: string;
  /** Set by `jsonBody`: how refusals name the body ("operation request", "seed document"). */
  bodyName?: string;
}
export type ServerEnv<V extends object = object> = { Variables: ServerVariables & V };

type ValidationFailure = { success: false; error: z.ZodError; target: string };

export function createSurface<V extends object = object>(): OpenAPIHono<ServerEnv<V>> {
  return new OpenAPIHono<ServerEnv<V>>({
    defaultHook: (result, c) => {
      if (!result.success) throw describeValidationFailure(result as ValidationFailure, c);
    },
  });
}

function describeValidationFailure(result: ValidationFailure, c: Context): HttpError {
  const issue = result.error.issues[0]!;
  const field = formatIssuePath(issue.path);
  switch (result.target) {
    case "json":
      return invalidRequest(`${c.get("bodyName") ?? "the body"}: ${field}: ${issue.message}`);
    case "header":
      if (issue.path[0] === HEADERS.idempotencyKey)
        return new HttpError(
          400,
          WIRE_ERRORS.invalidIdempotencyKey,
          "the Idempotency-Key header must be 1 to 128 printable ASCII characters, no spaces",
        );
      return invalidRequest(`header ${field}: ${issue.message}`);
    case "query":
      return invalidRequest(`query parameter ${field}: ${issue.message}`);
    default:
      return invalidRequest(`${result.target} ${field}: ${issue.message}`);
  }
}
