// The sandbox manager's refusals as HTTP, in one table: a sandbox of another workspace or engagement is 404 (as if
// it did not exist); a bad `.batonrc.json` is 400 `invalid_batonrc` naming each key. The manager's SandboxRefusal
// is its own surface-neutral error (the CLI's `baton env test` meets it too, as an exit code).
import { WIRE_ERRORS } from "../../../transport/wire.js";
import { SandboxRefusal } from "../../adapters/sandboxes/manager.js";
import type { HttpAnswer } from "../http/domain-errors.js";
import { HttpError } from "../http/http-error.js";

const SANDBOX_REFUSALS = {
  batonrc_invalid: { status: 400, error: WIRE_ERRORS.invalidBatonrc },
  checkout_refused: { status: 400, error: WIRE_ERRORS.invalidRequest },
  engagement_elsewhere: { status: 409, error: WIRE_ERRORS.conflict },
  workspace_not_found: { status: 404, error: WIRE_ERRORS.notFound },
  sandbox_not_found: { status: 404, error: WIRE_ERRORS.notFound },
  owner_unreachable: { status: 503, error: WIRE_ERRORS.ownerUnreachable },
} satisfies Record<SandboxRefusal["reason"], HttpAnswer>;

export function sandboxHttpError(error: unknown): unknown {
  if (!(error instanceof SandboxRefusal)) return error;
  const { status, error: code } = SANDBOX_REFUSALS[error.reason];
  return new HttpError(status, code, error.message);
}
