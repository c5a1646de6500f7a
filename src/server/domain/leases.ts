// How long an instance's claim on running work (an operation, a task's turn) lasts without renewal, and how often
// it is renewed and expired claims looked for. One setting for the service (`baton serve --lease-seconds`); every
// instance on one store should use the same.

/** The default lease: long enough for a stalled event loop or a slow commit, short enough to notice a death. */
export const DEFAULT_LEASE_MS = 30_000;

export interface LeaseSettings {
  /** How long a claim lasts from its last renewal. */
  leaseMs: number;
}

/** Renewed three times a lease, so two missed renewals still keep it. */
export const renewEveryMs = (settings: LeaseSettings): number =>
  Math.max(1, Math.floor(settings.leaseMs / 3));

/** The lease of `--lease-seconds`, or of BATON_SERVE_TEST_LEASE_MS (tests: a kill is noticed in about a second). */
export function leaseSettingsOf(leaseSeconds: number | undefined, env: NodeJS.ProcessEnv): LeaseSettings {
  const testMs = Number(env.BATON_SERVE_TEST_LEASE_MS ?? 0);
  if (Number.isSafeInteger(testMs) && testMs > 0) return { leaseMs: testMs };
  return { leaseMs: leaseSeconds !== undefined ? leaseSeconds * 1000 : DEFAULT_LEASE_MS };
}
