// `baton env request-capability`: flags and what it prints about the recorded request.
import "../zod-jitless.js";
import { type Command, Option } from "commander";
import { explainUnchangedEvidence } from "../../../capability/explain.js";
import { EVIDENCE_OUTCOMES } from "../../../capability/transitions.js";
import { requestCapability } from "../../../capability-client/request-capability.js";
import type { RecordCapabilityResponse } from "../../../transport/wire.js";
import type { CommandContext } from "../../context.js";
import { writeJson, writeLines } from "../../io.js";

interface Flags {
  repo: string;
  capability: string;
  target: string;
  reason?: string;
  evidence?: string;
  status?: string;
  json?: boolean;
}

export function declare(command: Command, { io, log, action }: CommandContext): void {
  command
    .requiredOption("--repo <owner/name>", "the repository the access is for")
    .requiredOption(
      "--capability <kind>",
      "registry_access, service_credential, api_key, data_access or other (legacy labels are accepted)",
    )
    .requiredOption("--target <target>", "host, URL (no credentials, query or fragment) or resource name")
    .option("--reason <text>", "what failed and why access is needed; never a secret or raw log")
    .addOption(
      new Option("--evidence <outcome>", "report an outcome on the matching request").choices(
        EVIDENCE_OUTCOMES,
      ),
    )
    .addOption(new Option("--status <code>", "HTTP status with the evidence").choices(["401", "403"]))
    .option("--json", "print the record as JSON")
    .action(
      action(async (flags: Flags) => {
        const { json, ...request } = flags;
        const answer = await requestCapability({ ...request, env: io.env, log });
        if (json) writeJson(io.stdout, answer);
        else writeLines(io.stdout, renderRecorded(answer));
        return undefined;
      }),
    );
}

export function renderRecorded(answer: RecordCapabilityResponse): string[] {
  const r = answer.request;
  const what = `${r.kind} for ${r.target} in ${r.repository}`;
  const lines: string[] = [];
  if (!answer.matched) lines.push(`Recorded capability request ${r.requestId} (${r.status}): ${what}.`);
  else {
    const by = answer.matchedBy === "target" ? "the same target" : "the matcher";
    lines.push(`Matched existing request ${r.requestId} (${r.status}) by ${by}: ${what}. No new request.`);
  }
  if (answer.evidence) {
    const { outcome, changed } = answer.evidence;
    lines.push(
      changed
        ? `Reported evidence ${outcome}: the request is now ${r.status}.`
        : `Reported evidence ${outcome}: the request stays ${r.status}, because ${explainUnchangedEvidence(outcome, r)}.`,
    );
  }
  if (r.status === "dismissed") {
    if (!answer.evidence)
      lines.push("An owner or admin dismissed this request; the dismissal stays in force.");
  } else if (r.status === "verification_pending" && !answer.evidence) {
    lines.push(
      `Access was supplied; run \`baton env activate ${r.repository}\` and try again, then report the outcome.`,
    );
  } else if (!answer.matched) {
    lines.push(
      `${describeEmail(answer.emailDelivery)} Recording grants no access and starts nothing; carry on without it.`,
    );
  }
  lines.push(`E-mail delivery state: baton op get ${r.requestId}`);
  return lines;
}

function describeEmail(delivery: RecordCapabilityResponse["emailDelivery"]): string {
  if (delivery === "sending") return "Owners and admins are being e-mailed.";
  if (delivery === "queued") {
    return "The e-mail to owners and admins is queued, not sent: this service has no mail relay (--smtp-url) yet.";
  }
  return "Owners and admins are notified.";
}
