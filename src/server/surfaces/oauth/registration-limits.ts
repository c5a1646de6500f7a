// Dynamic client registration (RFC 7591) is open to anyone, so it is bounded three ways: a budget per source
// address (the service's shared rate limiter: on PostgreSQL every instance counts together), a cap on the clients
// held at once, and an expiry for a client that never completes an authorization (its row is stored to expire
// after 24 h; its first grant clears that, adapter.ts). Expired clients are swept before the cap is counted.
import type { RateLimiter } from "../../domain/limits/rate-limiter.js";
import type { Store } from "../../store/store.js";

export interface RegistrationLimits {
  /** Registrations admitted per source address in any minute (IPv6: per /64). */
  perSourcePerMinute: number;
  /** Registered clients held at once; Client ID Metadata Documents are not counted (they are not stored). */
  maxClients: number;
}

export const DEFAULT_REGISTRATION_LIMITS: RegistrationLimits = { perSourcePerMinute: 30, maxClients: 10_000 };

/** How long a registered client lasts without a grant: the time a person has to approve it. */
export const UNUSED_CLIENT_LIFETIME_MS = 24 * 3_600_000;

export type RegistrationRefusal = {
  status: 403 | 429;
  error: string;
  description: string;
  retryAfterSeconds?: number;
};

/** Deletes the clients whose 24 h passed without a grant; returns how many. */
export async function sweepUnusedClients(db: Store, nowMs: number): Promise<number> {
  const { changes } = await db.run(
    "DELETE FROM oauth_models WHERE model = 'Client' AND expires_at_ms IS NOT NULL AND expires_at_ms <= ?",
    [nowMs],
  );
  return changes;
}

/** Why a registration from `source` may not go ahead now, or undefined when it may. */
export async function refuseRegistration(
  deps: { db: Store; limiter: RateLimiter },
  source: string | null,
  limits: RegistrationLimits,
  nowMs: number,
): Promise<RegistrationRefusal | undefined> {
  if (source !== null) {
    const decision = await deps.limiter.decide(`${source} oauth-register`, limits.perSourcePerMinute, nowMs);
    if (!decision.allowed)
      return {
        status: 429,
        error: "too_many_requests",
        description: `over the limit of ${limits.perSourcePerMinute} client registrations a minute from this address; retry after ${decision.retryAfterSeconds} s (a client registers once, then reuses its client_id)`,
        retryAfterSeconds: decision.retryAfterSeconds,
      };
  }
  // The adapter stores with Date.now(); the sweep and the count use the same clock.
  await sweepUnusedClients(deps.db, Date.now());
  const row = await deps.db.get<{ n: number }>(
    "SELECT COUNT(*) AS n FROM oauth_models WHERE model = 'Client' AND (expires_at_ms IS NULL OR expires_at_ms > ?)",
    [Date.now()],
  );
  if (Number(row?.n ?? 0) >= limits.maxClients)
    return {
      status: 403,
      error: "registration_full",
      description: `this service holds its limit of ${limits.maxClients} registered clients; clients that never complete a sign-in are removed 24 hours after registering, so retry later, use a Client ID Metadata Document (an https client_id) instead, or ask the operator to raise --oauth-max-clients`,
    };
  return undefined;
}
