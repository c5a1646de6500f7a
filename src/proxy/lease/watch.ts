// Keeps an open tunnel to its lease: the lease is looked up again when it expires and every `recheckMs`, and
// `onGone` is called once it is expired or unknown (revoked). A lookup that fails (baton serve unreachable) keeps
// the tunnel until the expiry it last heard of.
import type { LeasePolicy, LeasePolicySource } from "./policy.js";

export function watchLease(
  source: LeasePolicySource,
  lease: string,
  policy: LeasePolicy,
  recheckMs: number,
  onGone: () => void,
  now: () => number = Date.now,
): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let knownExpiry = policy.expiresAtMs;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(check, Math.max(0, Math.min(knownExpiry - now(), recheckMs)));
    timer.unref();
  };
  const gone = () => {
    if (stopped) return;
    stopped = true;
    onGone();
  };
  const check = () => {
    source.lookup(lease).then(
      (current) => {
        if (current === null || current.expiresAtMs <= now()) return gone();
        knownExpiry = current.expiresAtMs;
        schedule();
      },
      () => (knownExpiry <= now() ? gone() : schedule()),
    );
  };
  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
