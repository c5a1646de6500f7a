// Unknown or expired leases per source address, with the same pure throttle `baton serve` uses for its
// credentials: past the limit, every request from that address is refused with 429 `lease_failures_throttled`
// and Retry-After until the window passes, before any lease lookup reaches `baton serve`. One throttle per proxy
// (keyed on its context, so the server needs no new wiring); failures are audit lines, at most two per source
// per window.

import { AUDIT_EVENTS, logAuditEvent } from "../audit/events.js";
import {
  DEFAULT_THROTTLE_LIMITS,
  FailedCredentialThrottle,
  type ThrottleLimits,
} from "../throttle/failed-credentials.js";
import { sourceKeyOf } from "../throttle/source-address.js";
import type { ProxyContext } from "./context.js";
import { PROXY_ERRORS, type ProxyError } from "./wire.js";

const throttles = new WeakMap<object, FailedCredentialThrottle>();

/** A refusal that says how long to wait; renderRefusal turns it into Retry-After. */
export type ThrottledError = ProxyError & { retryAfterSeconds: number };

function throttleOf(context: ProxyContext, limits: ThrottleLimits): FailedCredentialThrottle {
  const key = context.leases;
  let throttle = throttles.get(key);
  if (!throttle) {
    throttle = new FailedCredentialThrottle(limits);
    throttles.set(key, throttle);
  }
  return throttle;
}

/** The refusal for a source that is blocked now, or null. */
export function refuseThrottledSource(
  context: ProxyContext,
  remoteAddress: string | undefined,
  nowMs = Date.now(),
  limits = DEFAULT_THROTTLE_LIMITS,
): ThrottledError | null {
  const source = sourceKeyOf(remoteAddress);
  if (source === null) return null;
  const verdict = throttleOf(context, limits).check(source, nowMs);
  if (!verdict.throttled) return null;
  return { ...PROXY_ERRORS.leaseFailuresThrottled, retryAfterSeconds: verdict.retryAfterSeconds };
}

export function noteLeaseFailure(
  context: ProxyContext,
  remoteAddress: string | undefined,
  nowMs = Date.now(),
  limits = DEFAULT_THROTTLE_LIMITS,
): void {
  const source = sourceKeyOf(remoteAddress);
  if (source === null) return;
  const report = throttleOf(context, limits).recordFailure(source, nowMs);
  if (report === null) return;
  const { kind, ...counts } = report;
  logAuditEvent(
    context.logger,
    kind === "failed" ? AUDIT_EVENTS.credentialFailed : AUDIT_EVENTS.credentialThrottled,
    { actor: source, source, credential: "lease", ...counts },
  );
}
