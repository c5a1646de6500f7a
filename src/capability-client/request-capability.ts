// `baton env request-capability`: validates locally (nothing is sent for a bad target or reason), then records
// the request or reports evidence on the matching one. Returns the service's answer; src/cli prints it.

import { normaliseCapabilityKind } from "../capability/kinds.js";
import { normaliseCapabilityTarget, validateCapabilityReason } from "../capability/target.js";
import { EVIDENCE_OUTCOMES, EVIDENCE_STATUS, type EvidenceOutcome } from "../capability/transitions.js";
import { RepositorySlugSchema } from "../envfile/overlay.js";
import { UsageError } from "../errors.js";
import type { Log } from "../log-level.js";
import { requireOpsSettings } from "../transport/settings.js";
import type { EvidenceBody, RecordCapabilityResponse } from "../transport/wire.js";
import { createCapabilityClient } from "./ops-client.js";

export interface RequestCapabilityInput {
  repo: string;
  capability: string;
  target: string;
  reason?: string | undefined;
  evidence?: string | undefined;
  status?: string | undefined;
  env: NodeJS.ProcessEnv;
  log?: Log;
}

export function parseEvidence(
  evidence: string | undefined,
  status: string | undefined,
): EvidenceBody | undefined {
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

export async function requestCapability(input: RequestCapabilityInput): Promise<RecordCapabilityResponse> {
  if (!RepositorySlugSchema.safeParse(input.repo).success)
    throw new UsageError("--repo must be owner/name, e.g. --repo acme/api");
  normaliseCapabilityKind(input.capability);
  normaliseCapabilityTarget(input.target);
  const evidence = parseEvidence(input.evidence, input.status);
  if (input.reason === undefined && evidence === undefined) {
    throw new UsageError("--reason is required: say what failed and why access is needed");
  }
  if (input.reason !== undefined) validateCapabilityReason(input.reason);

  const client = createCapabilityClient(requireOpsSettings(input.env), input.log ? { log: input.log } : {});
  try {
    return await client.record({
      repository: input.repo,
      capability: input.capability,
      target: input.target,
      ...(input.reason === undefined ? {} : { reason: input.reason }),
      ...(evidence ? { evidence } : {}),
    });
  } finally {
    client.close();
  }
}
