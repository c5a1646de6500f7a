// How Baton answers an agent's `session/request_permission` (issue 34: the box is the boundary, so allow; the
// option an agent offers for "always" where it has one, so it stops asking). Pure: the session records the
// request with the answer this returns.
import type { PermissionOption, RequestPermissionOutcome } from "@agentclientprotocol/sdk";

/** Kinds in the order the policy prefers them. Rejecting is chosen only when an agent offers nothing else. */
const PREFERENCE = ["allow_always", "allow_once", "reject_once", "reject_always"] as const;

export function decidePermission(
  options: readonly PermissionOption[],
  turn: { cancelling: boolean },
): RequestPermissionOutcome {
  // ACP: once the client has sent session/cancel it answers every pending and later request `cancelled`.
  if (turn.cancelling) return { outcome: "cancelled" };
  for (const kind of PREFERENCE) {
    const option = options.find((candidate) => candidate.kind === kind);
    if (option) return { outcome: "selected", optionId: option.optionId };
  }
  return { outcome: "cancelled" };
}
