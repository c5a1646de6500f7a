// How a JSON surface (ops, admin, members) answers the domain's refusals: each surface keeps one table from every
// domain code to its status and wire code, and installs it as the surface's error hook. The hook turns a
// DomainError into that surface's HttpError and rethrows it (and anything else unchanged), so the listener's one
// error handler (errors.ts) still renders every response and logs every unexpected failure.
import type { ErrorHandler } from "hono";
import { WIRE_ERRORS } from "../../../transport/wire.js";
import { DomainError, type DomainErrorCode } from "../../domain/errors.js";
import { HttpError } from "./http-error.js";

/** One surface's answer to a domain code: the HTTP status and the `error` code its clients know. */
export interface HttpAnswer {
  status: number;
  error: string;
}
export type DomainAnswers = Record<DomainErrorCode, HttpAnswer>;

/**
 * The answer to a code from domain functions this surface never calls (a surface's table names it for each code
 * its routes cannot meet): should one arrive it is a service bug, answered as a 500 that names no internals.
 */
export const NOT_ON_THIS_SURFACE: HttpAnswer = { status: 500, error: WIRE_ERRORS.internal };
const BUG_REASON = "the service failed; retry later";

/** The surface's refusal for a domain error: its status and wire code, the domain's reason (it names no secret). */
export function httpErrorOf(answers: DomainAnswers, error: DomainError): HttpError {
  const answer = answers[error.code];
  if (answer === NOT_ON_THIS_SURFACE) return new HttpError(answer.status, answer.error, BUG_REASON);
  return new HttpError(answer.status, answer.error, error.reason);
}

/**
 * The `onError` of a surface sub-app. Install it before the surface is mounted: hono wraps a mounted sub-app's
 * routes with the error handler the sub-app has at that moment.
 */
export function mapDomainErrors(answers: DomainAnswers): ErrorHandler {
  return (error) => {
    throw error instanceof DomainError ? httpErrorOf(answers, error) : error;
  };
}
