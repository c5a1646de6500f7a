// A queued webhook delivery applied to the domain: the code host's events by their `X-GitHub-Event` name, the
// tracker's by the payload's `type` and `action`. Returns the outcome operators see; throws only when a port
// failed (the delivery is retried).
import { applyCodehostEvent } from "./codehost-events.js";
import type { IssueEventDeps } from "./issue-event-deps.js";
import { applyTrackerEvent } from "./tracker-events.js";

export type { IssueEventDeps } from "./issue-event-deps.js";

export function applyIssueEvent(
  deps: IssueEventDeps,
  delivery: { source: "codehost" | "tracker"; event: string; payload: string },
): Promise<string> {
  const payload: unknown = JSON.parse(delivery.payload);
  return delivery.source === "codehost"
    ? applyCodehostEvent(deps, delivery.event, payload)
    : applyTrackerEvent(deps, payload);
}
