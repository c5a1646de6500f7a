// `baton op get <cr_...>`: a capability request with its e-mail delivery state; failed deliveries are queued
// again for the recipients that did not get them (the ones that succeeded are not sent twice).
import { EXIT, type ExitCode } from "../../cli/exit-codes.js";
import { type CliIo, writeJson, writeLine } from "../../cli/io.js";
import { requireOpsSettings } from "../../transport/settings.js";
import type { RedeliverResponse } from "../../transport/wire.js";
import { createCapabilityClient } from "./ops-client.js";

export async function showCapabilityRequest(options: {
  id: string;
  json: boolean;
  io: CliIo;
}): Promise<ExitCode> {
  const client = createCapabilityClient(requireOpsSettings(options.io.env));
  try {
    const view = await client.view(options.id);
    const failed = view.notifications.some((n) => n.deliveries.some((d) => d.state === "failed"));
    const answer: RedeliverResponse = failed
      ? await client.redeliver(options.id)
      : { ...view, redelivered: [] };
    if (options.json) writeJson(options.io.stdout, answer);
    else for (const line of renderRequestView(answer)) writeLine(options.io.stdout, line);
    return EXIT.ok;
  } finally {
    await client.close();
  }
}

export function renderRequestView(view: RedeliverResponse): string[] {
  const r = view.request;
  const lines = [
    `Capability request ${r.requestId}: ${r.kind} for ${r.target} in ${r.repository}`,
    `Status: ${r.status}${r.lastOutcome ? ` (last evidence ${r.lastOutcome.outcome}${r.lastOutcome.status ? ` ${r.lastOutcome.status}` : ""})` : ""}`,
  ];
  for (const n of view.notifications) {
    const parts = n.deliveries.map(
      (d) => `${d.recipient} ${d.state}${d.state === "sent" ? "" : ` (${d.attempts} attempts)`}`,
    );
    lines.push(
      `E-mail ${n.kind === "new_request" ? "new request" : "repair"}: ${parts.join(", ") || "no owners or admins"}`,
    );
  }
  if (view.redelivered.length > 0) {
    lines.push(
      `Redelivering to ${view.redelivered.map((d) => d.recipient).join(", ")}; check again with: baton op get ${r.requestId}`,
    );
  }
  return lines;
}
