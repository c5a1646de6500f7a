// One typed error that knows its HTTP response (the hono model). Reasons say what to fix and never carry a
// token or secret value.
import { WIRE_ERRORS } from "../../transport/wire.js";

export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(
    readonly status: number,
    readonly error: string,
    readonly reason: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${status} ${error}: ${reason}`);
  }
}

export const invalidToken = (reason = "the turn token or sandbox lease is missing, unknown or expired") =>
  new HttpError(401, WIRE_ERRORS.invalidToken, reason);
export const notFound = (reason = "no such resource") => new HttpError(404, WIRE_ERRORS.notFound, reason);
export const invalidRequest = (reason: string) => new HttpError(400, WIRE_ERRORS.invalidRequest, reason);
