// The capability-request state machine (reference section 3 "Capability request") as one pure function.
// Each row of the reference's table is a case here and a row in test/unit/capability/transitions.test.ts.

export const CAPABILITY_STATUSES = [
  "open",
  "verification_pending",
  "repair_needed",
  "verified",
  "dismissed",
] as const;
export type CapabilityStatus = (typeof CAPABILITY_STATUSES)[number];

/** Statuses the semantic matcher may merge into; `verified` and `dismissed` are never reopened. */
export const MATCHABLE_STATUSES: ReadonlySet<CapabilityStatus> = new Set([
  "open",
  "verification_pending",
  "repair_needed",
]);

export const EVIDENCE_OUTCOMES = ["verified", "authentication", "permission", "network", "provider"] as const;
export type EvidenceOutcome = (typeof EVIDENCE_OUTCOMES)[number];
/** The HTTP status that goes with an outcome, when one is given. */
export const EVIDENCE_STATUS: Partial<Record<EvidenceOutcome, 401 | 403>> = {
  authentication: 401,
  permission: 403,
};

export interface CapabilityState {
  status: CapabilityStatus;
  /** A secret was bound with `capabilityRequestId` (access supplied at least once). */
  accessSupplied: boolean;
}

export type CapabilityEvent =
  | { type: "access_supplied"; authorised: boolean; why?: string }
  | { type: "secret_rotated" }
  | { type: "evidence"; outcome: EvidenceOutcome }
  | { type: "dismiss" };

export type CapabilityRefusal = "not_authorised" | "dismissed" | "verified";

export type TransitionResult =
  | {
      ok: true;
      state: CapabilityState;
      changed: boolean;
      /** Owners/admins get one e-mail for each new actionable repair. */
      notify: "repair" | null;
    }
  | { ok: false; refusal: CapabilityRefusal; reason: string };

const same = (state: CapabilityState): TransitionResult => ({
  ok: true,
  state,
  changed: false,
  notify: null,
});
const to = (
  state: CapabilityState,
  status: CapabilityStatus,
  notify: "repair" | null = null,
): TransitionResult => ({
  ok: true,
  state: { status, accessSupplied: state.accessSupplied || status === "verification_pending" },
  changed: status !== state.status,
  notify,
});

function onAccessSupplied(
  state: CapabilityState,
  authorised: boolean,
  why: string | undefined,
): TransitionResult {
  if (state.status === "dismissed") {
    return {
      ok: false,
      refusal: "dismissed",
      reason: "the request was dismissed; ask the agent to request again",
    };
  }
  if (state.status === "verified") {
    return {
      ok: false,
      refusal: "verified",
      reason: "the request is already verified; write the secret without capabilityRequestId",
    };
  }
  if (!authorised) {
    return {
      ok: false,
      refusal: "not_authorised",
      reason: why ?? "the secret's allowed hosts do not authorise the requested resource",
    };
  }
  // open or repair_needed -> verification_pending; writing again while pending is a rotation.
  return to(state, "verification_pending");
}

function onEvidence(state: CapabilityState, outcome: EvidenceOutcome): TransitionResult {
  switch (outcome) {
    case "network":
    case "provider":
      // Never invalidates credentials and changes nothing; the outcome is only recorded.
      return same(state);
    case "authentication":
    case "permission":
      // A repair makes sense only after access was supplied; one e-mail for each new actionable repair.
      if (!state.accessSupplied) return same(state);
      if (state.status === "verification_pending" || state.status === "verified") {
        return to(state, "repair_needed", "repair");
      }
      return same(state);
    case "verified":
      // The reference leaves the change open; ours: a pending supplied access that worked becomes verified.
      return state.status === "verification_pending" ? to(state, "verified") : same(state);
  }
}

export function transitionCapabilityRequest(
  state: CapabilityState,
  event: CapabilityEvent,
): TransitionResult {
  switch (event.type) {
    case "access_supplied":
      return onAccessSupplied(state, event.authorised, event.why);
    case "secret_rotated":
      // A rotated bound secret satisfies a repair again; it never reopens verified or dismissed requests.
      if (!state.accessSupplied) return same(state);
      return state.status === "repair_needed" || state.status === "verification_pending"
        ? to(state, "verification_pending")
        : same(state);
    case "evidence":
      return onEvidence(state, event.outcome);
    case "dismiss":
      if (state.status === "verified") {
        return { ok: false, refusal: "verified", reason: "a verified request cannot be dismissed" };
      }
      return to(state, "dismissed");
  }
}
