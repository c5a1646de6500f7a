// What every dashboard POST passes before its handler reads a field: the body limit, then the CSRF check.
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { WIRE_ERRORS } from "../../../../transport/wire.js";
import { HttpError } from "../../http/http-error.js";
import { KiB } from "../../http/json-body.js";
import type { PagesEnv } from "../env.js";
import { verifyCsrf } from "../session.js";

/** A form of ids and short text (delegate, dismiss). */
export const SMALL_FORM_BYTES = 16 * KiB;
/** The secret form: a value of up to 65,536 characters, each up to 12 bytes once form-encoded, and the hosts. */
export const SECRET_FORM_BYTES = 1024 * KiB;

export function formGuards(
  maxBytes: number,
): readonly [MiddlewareHandler<PagesEnv>, MiddlewareHandler<PagesEnv>] {
  return [bodyLimit({ maxSize: maxBytes, onError: () => tooLarge() }), verifyCsrf({ thrown: true })] as const;
}

function tooLarge(): never {
  throw new HttpError(
    413,
    WIRE_ERRORS.payloadTooLarge,
    "The form is too large. Go back, shorten what you typed and send it again.",
  );
}
