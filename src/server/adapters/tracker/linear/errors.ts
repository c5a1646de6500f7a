// What the Linear adapter throws: one error that says which call failed and why, carrying the HTTP status and
// Linear's own error code when there is one. Messages never hold a token or the client secret.
import { BatonError, type ErrorCode } from "../../../../errors.js";

export interface TrackerApiErrorOptions {
  /** The tracker's HTTP status; undefined when it could not be reached. */
  status?: number | undefined;
  /** Linear's `extensions.code` or OAuth `error`. */
  trackerCode?: string | undefined;
  /** Default: `network` without a status, `service_error` with one. */
  code?: ErrorCode;
  cause?: unknown;
}

export class TrackerApiError extends BatonError {
  override readonly name = "TrackerApiError";
  readonly status: number | undefined;
  readonly trackerCode: string | undefined;
  constructor(message: string, options: TrackerApiErrorOptions = {}) {
    super(options.code ?? (options.status === undefined ? "network" : "service_error"), message, {
      cause: options.cause,
    });
    this.status = options.status;
    this.trackerCode = options.trackerCode;
  }
}
