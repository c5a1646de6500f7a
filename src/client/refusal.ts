// The facts of an API refusal a command acts on (the wire code, the saved task or message a 503 names), read back
// from the error the API client threw (src/client/api-errors.ts attaches them as details).
import { isBatonError } from "../errors.js";
import type { ApiRefusalDetails } from "./api-errors.js";

export function refusalOf(error: unknown): ApiRefusalDetails | undefined {
  if (!isBatonError(error) || error.details === undefined) return undefined;
  return error.details as unknown as ApiRefusalDetails;
}
