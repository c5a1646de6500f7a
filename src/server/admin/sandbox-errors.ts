// The sandbox manager's refusals as HTTP: a sandbox of another workspace or engagement is 404 (as if it did not
// exist); a bad `.batonrc.json` is 400 `invalid_batonrc` naming each key.
import { WIRE_ERRORS } from "../../transport/wire.js";
import { HttpError, notFound } from "../http/http-error.js";
import { SandboxRefusal } from "../sandboxes/manager.js";

export function sandboxHttpError(error: unknown): unknown {
  if (!(error instanceof SandboxRefusal)) return error;
  switch (error.reason) {
    case "batonrc_invalid":
      return new HttpError(400, WIRE_ERRORS.invalidBatonrc, error.message);
    case "checkout_refused":
      return new HttpError(400, WIRE_ERRORS.invalidRequest, error.message);
    case "engagement_elsewhere":
      return new HttpError(409, "conflict", error.message);
    default:
      return notFound(error.message);
  }
}
