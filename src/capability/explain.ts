// Why reported evidence left a capability request as it was, from the request as the service returned it. Pure;
// follows the rules of transitions.ts so the agent learns what would change it.
import type { CapabilityStatus, EvidenceOutcome } from "./transitions.js";

export function explainUnchangedEvidence(
  outcome: EvidenceOutcome,
  request: { status: CapabilityStatus; accessSupplied: boolean },
): string {
  if (request.status === "dismissed")
    return "an owner or admin dismissed the request, and a dismissal stays in force";
  if (outcome === "network" || outcome === "provider") {
    return `${outcome} failures are recorded but never change a request: they are not a problem with the access`;
  }
  if (!request.accessSupplied) {
    return "no access has been supplied for it yet, so there is nothing to verify or repair; it stays open until an owner or admin supplies access";
  }
  if (outcome === "verified") {
    return request.status === "verified"
      ? "it is already verified"
      : "it needs repair; report verified after an owner or admin supplies access again and it works";
  }
  return "it already needs repair; owners and admins were e-mailed when it first did";
}
