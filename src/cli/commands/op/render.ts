// What `baton op get` prints for people: an operation or a capability request. Pure.
import { countOf } from "../../../format/index.js";
import type { Operation, ProxyRefusalWire, RedeliverResponse } from "../../../transport/wire.js";
import { nextStepAfterFailure } from "../env/render-activation.js";

export function renderOperation(op: Operation): string[] {
  const lines = [
    `Operation ${op.id}: ${op.kind} ${op.repository}`,
    `State: ${op.state}${op.finishedAt ? ` (finished ${op.finishedAt})` : ` (since ${op.updatedAt})`}`,
  ];
  if (op.error) lines.push(`Error: ${op.error.reason} (${op.error.code})`);
  if (op.result) {
    lines.push(`Overlay revision: ${op.result.overlayRevision}`);
    for (const v of op.result.variables) lines.push(`  ${v.repository}: ${v.name} -> ${v.assigned}`);
  }
  if (op.state === "pending" || op.state === "running")
    lines.push(`Still working; check again with: baton op get ${op.id}`);
  else if (op.state === "succeeded")
    lines.push(
      `The \`baton env activate\` that waited for it wrote ~/.baton/environment.sh and the handoff; after --no-wait nothing was written here: run \`baton env activate ${op.repository}\` (without --no-wait) to write them.`,
    );
  else lines.push(nextStepAfterFailure(op.error?.code, op.repository));
  return lines;
}

const SHOWN_REFUSALS = 5;

/** The sandbox's latest egress-proxy refusals (nothing when there are none or they could not be read). */
export function renderProxyRefusals(refusals: readonly ProxyRefusalWire[] | null): string[] {
  if (!refusals || refusals.length === 0) return [];
  const shown = refusals.slice(-SHOWN_REFUSALS);
  return [
    `Egress proxy refusals for this sandbox (latest ${shown.length} of ${refusals.length}):`,
    ...shown.map((r) => `  ${r.at} ${r.method} ${r.host}:${r.port} -> ${r.status} ${r.code}: ${r.reason}`),
    "  For a host the task needs: baton env request-capability --repo <owner/name> --capability <kind> --target <host> --reason <why>",
  ];
}

export function renderRequestView(view: RedeliverResponse): string[] {
  const r = view.request;
  const lines = [
    `Capability request ${r.requestId}: ${r.kind} for ${r.target} in ${r.repository}`,
    `Status: ${r.status}${r.lastOutcome ? ` (last evidence ${r.lastOutcome.outcome}${r.lastOutcome.status ? ` ${r.lastOutcome.status}` : ""})` : ""}`,
  ];
  for (const n of view.notifications) {
    const parts = n.deliveries.map(
      (d) => `${d.recipient} ${d.state}${d.state === "sent" ? "" : ` (${countOf(d.attempts, "attempt")})`}`,
    );
    lines.push(
      `E-mail ${n.kind === "new_request" ? "new request" : "repair"}: ${parts.join(", ") || "no owners or admins"}`,
    );
  }
  if (view.emailDelivery === "queued" && view.notifications.length > 0) {
    lines.push("This service has no mail relay (--smtp-url) yet: e-mail stays queued until it has one.");
  }
  if (view.redelivered.length > 0) {
    lines.push(
      `Redelivering to ${view.redelivered.map((d) => d.recipient).join(", ")}; check again with: baton op get ${r.requestId}`,
    );
  }
  return lines;
}
