// Throttles failed credentials per source address on every surface of the composed app (admin token, personal
// tokens, turn token + lease, proxy token): a blocked source gets 429 `bad_request` with Retry-After before any
// credential is read; every 401 counts against its source. The source is the socket's peer address, which
// @hono/node-server hands the app as `c.env.incoming`; a request with no socket (tests through app.request) is
// not throttled. Failures are logged as audit events, at most twice per source per window.
import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { AUDIT_EVENTS, type AuditLog, logAuditEvent } from "../../../audit/events.js";
import {
  DEFAULT_THROTTLE_LIMITS,
  FailedCredentialThrottle,
  type ThrottleLimits,
} from "../../../throttle/failed-credentials.js";
import { sourceKeyOf } from "../../../throttle/source-address.js";
import { HEADERS, WIRE_ERRORS } from "../../../transport/wire.js";
import { HttpError } from "./http-error.js";
import type { ServerEnv } from "./surface.js";

const FAILED_CREDENTIAL_STATUS = 401;

/** The socket's peer address as given by @hono/node-server; never X-Forwarded-For. */
export function sourceAddressOf(c: Context): string | undefined {
  const env = c.env as { incoming?: IncomingMessage } | undefined;
  return env?.incoming?.socket?.remoteAddress;
}

export function throttleFailedCredentials(options: {
  logger: AuditLog;
  now: () => Date;
  limits?: ThrottleLimits;
}) {
  const throttle = new FailedCredentialThrottle(options.limits ?? DEFAULT_THROTTLE_LIMITS);
  return createMiddleware<ServerEnv>(async (c, next) => {
    const source = sourceKeyOf(sourceAddressOf(c));
    if (source === null) return next();
    const verdict = throttle.check(source, options.now().getTime());
    if (verdict.throttled)
      throw new HttpError(
        429,
        WIRE_ERRORS.rateLimited,
        `too many failed credentials from this address; retry after ${verdict.retryAfterSeconds} s with a valid one`,
        { [HEADERS.retryAfter]: String(verdict.retryAfterSeconds) },
      );
    await next();
    if (c.res.status !== FAILED_CREDENTIAL_STATUS) return;
    const report = throttle.recordFailure(source, options.now().getTime());
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
