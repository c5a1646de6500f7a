// Throttles failed credentials per source address on every surface of the composed app (admin token, personal
// tokens, turn token + lease, proxy token). Every 401 counts against its source; once a source is blocked its
// further failing attempts are answered 429 `bad_request` with Retry-After instead of 401, while a credential
// that verifies is served as ever. The block is on failing, never on the address: behind a front every user
// shares one address, and refusing them all would let twenty bad tokens take the service away (issue 35 10b).
// The source is the client's address (client-address.ts: the socket's peer, or the client a trusted front
// names); a request with no socket (tests through app.request) is not throttled. On PostgreSQL the counts are
// kept in the store, so all instances count a source's failures together (domain/limits/store-throttle.ts). Failures are logged as audit
// events, at most twice per source per window.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { AUDIT_EVENTS, type AuditLog, logAuditEvent } from "../../../audit/events.js";
import {
  type CredentialThrottle,
  DEFAULT_THROTTLE_LIMITS,
  FailedCredentialThrottle,
  type ThrottleLimits,
} from "../../../throttle/failed-credentials.js";
import { sourceKeyOf } from "../../../throttle/source-address.js";
import { HEADERS, WIRE_ERRORS } from "../../../transport/wire.js";
import { requestSourceOf } from "./client-address.js";
import { HttpError } from "./http-error.js";
import type { ServerEnv } from "./surface.js";

const FAILED_CREDENTIAL_STATUS = 401;

/** The client's address (the socket's peer, or the client a trusted front names); see client-address.ts. */
export function sourceAddressOf(c: Context): string | undefined {
  return requestSourceOf(c);
}

export function throttleFailedCredentials(options: {
  logger: AuditLog;
  now: () => Date;
  limits?: ThrottleLimits;
  /** Where failures are counted: in memory by default; the store's throttle on PostgreSQL (shared by instances). */
  throttle?: CredentialThrottle;
}) {
  const throttle =
    options.throttle ?? new FailedCredentialThrottle(options.limits ?? DEFAULT_THROTTLE_LIMITS);
  return createMiddleware<ServerEnv>(async (c, next) => {
    // The credential is checked first: only its failure is the throttle's business. A refused request did
    // nothing (authentication comes before every handler's work), so its 401 can still become a 429.
    await next();
    if (c.res.status !== FAILED_CREDENTIAL_STATUS) return;
    const source = sourceKeyOf(sourceAddressOf(c));
    if (source === null) return;
    const nowMs = options.now().getTime();
    const verdict = await throttle.check(source, nowMs);
    if (verdict.throttled) {
      await c.res.body?.cancel();
      // Unset first: hono copies the headers of the answer being replaced (its WWW-Authenticate) otherwise.
      c.res = undefined;
      c.res = new HttpError(
        429,
        WIRE_ERRORS.rateLimited,
        `too many failed credentials from this address; retry after ${verdict.retryAfterSeconds} s with a valid one`,
        { [HEADERS.retryAfter]: String(verdict.retryAfterSeconds) },
      ).toResponse(c.get("requestId"));
      return;
    }
    const report = await throttle.recordFailure(source, nowMs);
    if (report === null) return;
    const { kind, ...counts } = report;
    logAuditEvent(
      options.logger,
      kind === "failed" ? AUDIT_EVENTS.credentialFailed : AUDIT_EVENTS.credentialThrottled,
      {
        requestId: c.get("requestId"),
        source,
        method: c.req.method,
        path: c.req.path.slice(0, 200),
        ...counts,
      },
    );
  });
}
