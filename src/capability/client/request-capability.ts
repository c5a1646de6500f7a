// `baton env request-capability`: validates locally (nothing is sent for a bad target or reason), records the
// request or reports evidence on the matching one, and prints the id, status and whether it matched.
import { EXIT, type ExitCode } from "../../cli/exit-codes.js";
import { type CliIo, writeJson, writeLine } from "../../cli/io.js";
import { RepositorySlugSchema } from "../../envfile/overlay.js";
import { UsageError } from "../../errors.js";
import { requireOpsSettings } from "../../transport/settings.js";
import type { EvidenceBody, RecordCapabilityResponse } from "../../transport/wire.js";
import { normaliseCapabilityKind } from "../kinds.js";
import { normaliseCapabilityTarget, validateCapabilityReason } from "../target.js";
import { EVIDENCE_OUTCOMES, EVIDENCE_STATUS, type EvidenceOutcome } from "../transitions.js";
import { createCapabilityClient } from "./ops-client.js";

export interface RequestCapabilityOptions {
  repo: string;
  capability: string;
  target: string;
  reason?: string | undefined;
  evidence?: string | undefined;
  status?: string | undefined;
  json: boolean;
  io: CliIo;
}

function parseEvidence(evidence: string | undefined, status: string | undefined): EvidenceBody | undefined {
  if (evidence === undefined) {
    if (status !== undefined)
      throw new UsageError("--status goes with --evidence authentication (401) or permission (403)");
    return undefined;
  }
  if (!(EVIDENCE_OUTCOMES as readonly string[]).includes(evidence)) {
    throw new UsageError(`--evidence must be one of ${EVIDENCE_OUTCOMES.join(", ")}`);
  }
  const outcome = evidence as EvidenceOutcome;
  if (status === undefined) return { outcome };
  const expected = EVIDENCE_STATUS[outcome];
  if (String(expected) !== status) {
    throw new UsageError(
      expected
        ? `--evidence ${outcome} goes with --status ${expected}`
        : `--evidence ${outcome} takes no --status`,
    );
  }
  return { outcome, status: expected! };
}

export async function requestCapability(options: RequestCapabilityOptions): Promise<ExitCode> {
  if (!RepositorySlugSchema.safeParse(options.repo).success)
    throw new UsageError("--repo must be owner/name");
  normaliseCapabilityKind(options.capability);
  normaliseCapabilityTarget(options.target);
  const evidence = parseEvidence(options.evidence, options.status);
  if (options.reason === undefined && evidence === undefined) {
    throw new UsageError("--reason is required: say what failed and why access is needed");
  }
  if (options.reason !== undefined) validateCapabilityReason(options.reason);

  const client = createCapabilityClient(requireOpsSettings(options.io.env));
  try {
    const answer = await client.record({
      repository: options.repo,
      capability: options.capability,
      target: options.target,
      ...(options.reason === undefined ? {} : { reason: options.reason }),
      ...(evidence ? { evidence } : {}),
    });
    if (options.json) writeJson(options.io.stdout, answer);
    else for (const line of renderRecorded(answer)) writeLine(options.io.stdout, line);
    return EXIT.ok;
  } finally {
    await client.close();
  }
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
    const changed = answer.evidence.changed ? `status is now ${r.status}` : "status unchanged";
    lines.push(`Reported evidence ${answer.evidence.outcome}: ${changed}.`);
  }
  if (r.status === "dismissed")
    lines.push("An owner or admin dismissed this request; the dismissal stays in force.");
  else if (r.status === "verification_pending" && !answer.evidence) {
    lines.push(
      `Access was supplied; run \`baton env activate ${r.repository}\` and try again, then report the outcome.`,
    );
  } else if (!answer.matched) {
    lines.push(
      "Owners and admins are e-mailed. Recording grants no access and starts nothing; carry on without it.",
    );
  }
  lines.push(`E-mail delivery state: baton op get ${r.requestId}`);
  return lines;
}
