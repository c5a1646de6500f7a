// The proxy's port onto "who is this lease": a source answers with the sandbox, workspace and secrets (with
// their approved destinations) a lease stands for, or null when the lease is unknown or expired.
import { type ApprovedDestination, parseApprovedDestination } from "../../capability/destination.js";
import type { LeasePolicyResponse } from "./wire.js";

export interface LeaseSecret {
  id: string;
  placeholder: string;
  value: string;
  destinations: ApprovedDestination[];
  /** The only headers (lower case) it is swapped in, when bound (a model key: its vendor's header). */
  headers?: string[];
}

export interface LeasePolicy {
  sandboxId: string;
  workspaceId: string;
  engagementId: string;
  expiresAtMs: number;
  secrets: LeaseSecret[];
}

export interface LeasePolicySource {
  lookup(lease: string): Promise<LeasePolicy | null>;
}

/** Turns the internal route's answer into a policy; destinations that do not parse are dropped (never widened). */
export function toLeasePolicy(response: LeasePolicyResponse): LeasePolicy {
  return {
    sandboxId: response.sandboxId,
    workspaceId: response.workspaceId,
    engagementId: response.engagementId,
    expiresAtMs: Date.parse(response.leaseExpiresAt),
    secrets: response.secrets.map((s) => ({
      id: s.id,
      placeholder: s.placeholder,
      value: s.value,
      destinations: s.destinations
        .map(parseApprovedDestination)
        .filter((d): d is ApprovedDestination => d !== null),
      ...(s.headers ? { headers: s.headers } : {}),
    })),
  };
}

/** An in-process source over fixed leases: for tests and for the benchmark, which have no `baton serve`. */
export function createStaticLeaseSource(
  leases: Record<string, LeasePolicy>,
  now: () => number = Date.now,
): LeasePolicySource {
  return {
    lookup: async (lease) => {
      const policy = leases[lease];
      return policy && policy.expiresAtMs > now() ? policy : null;
    },
  };
}
