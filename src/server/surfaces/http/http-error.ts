// One typed error that knows its HTTP response (hono's HTTPException model): every refusal on every surface is
// thrown as an HttpError and rendered by `toResponse` as `{error, reason, requestId}` with the request-id header.
// Reasons say what to fix and never carry a token or secret value.
import { HEADERS, WIRE_ERRORS } from "../../../transport/wire.js";

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

  toResponse(requestId: string): Response {
    return new Response(JSON.stringify({ error: this.error, reason: this.reason, requestId }), {
      status: this.status,
      headers: {
        "content-type": "application/json",
        ...this.headers,
        [HEADERS.requestId]: requestId,
      },
    });
  }
}

export const invalidToken = (reason = "the turn token or sandbox lease is missing, unknown or expired") =>
  new HttpError(401, WIRE_ERRORS.invalidToken, reason);
export const notFound = (reason = "no such resource") => new HttpError(404, WIRE_ERRORS.notFound, reason);
export const invalidRequest = (reason: string) => new HttpError(400, WIRE_ERRORS.invalidRequest, reason);
export const payloadTooLarge = (what: string, limitBytes: number) =>
  new HttpError(413, WIRE_ERRORS.payloadTooLarge, `${what} is over ${describeBytes(limitBytes)}; send less`);

export function describeBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
