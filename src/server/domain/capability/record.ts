// The agent's side: record a request (exact target first, then the budgeted semantic matcher), and report
// evidence on it. Every state change and its e-mail commit in one transaction.
import { createHash } from "node:crypto";
import { normaliseCapabilityKind } from "../../../capability/kinds.js";
import { decideMerge, type MatchExisting, type MergeDecision } from "../../../capability/matcher.js";
import { normaliseCapabilityTarget, validateCapabilityReason } from "../../../capability/target.js";
import {
  EVIDENCE_STATUS,
  MATCHABLE_STATUSES,
  transitionCapabilityRequest,
} from "../../../capability/transitions.js";
import {
  CAPABILITY_REQUEST_ID_PREFIX,
  type EvidenceBody,
  type RecordCapabilityBody,
  type RecordCapabilityResponse,
} from "../../../transport/wire.js";
import { newId } from "../../primitives/tokens.js";
import { capabilityRecordLock } from "../../store/lock-keys.js";
import type { Caller } from "../auth/authenticate.js";
import { domainError } from "../errors.js";
import {
  getRequest,
  insertRequest,
  matchableRequests,
  recordOutcome,
  requestsWithTarget,
  type StoredRequest,
  saveState,
  stateOf,
  toWire,
} from "./requests-store.js";
import { type CapabilityRuntime, notifyOwners, validated } from "./runtime.js";

export function checkEvidence(body: EvidenceBody): void {
  const expected = EVIDENCE_STATUS[body.outcome];
  if (body.status !== undefined && body.status !== expected) {
    throw domainError(
      "invalid_request",
      expected
        ? `evidence ${body.outcome} goes with status ${expected}`
        : `evidence ${body.outcome} takes no status; --status is for authentication (401) or permission (403)`,
    );
  }
}

/** Applies evidence inside a transaction; returns whether the status changed. */
async function applyEvidence(
  rt: CapabilityRuntime,
  request: StoredRequest,
  body: EvidenceBody,
  now: Date,
): Promise<boolean> {
  const result = transitionCapabilityRequest(stateOf(request), { type: "evidence", outcome: body.outcome });
  if (!result.ok) throw domainError("request_closed", result.reason);
  const at = now.toISOString();
  await saveState(rt.db, request.requestId, result.state, at);
  await recordOutcome(
    rt.db,
    request.requestId,
    {
      outcome: body.outcome,
      httpStatus: body.status ?? EVIDENCE_STATUS[body.outcome] ?? null,
      before: request.status,
      after: result.state.status,
    },
    at,
  );
  if (result.notify === "repair") await notifyOwners(rt, { ...request, ...result.state }, "repair", now);
  return result.changed;
}

async function repositoryOf(
  rt: CapabilityRuntime,
  workspaceId: string,
  slug: string,
): Promise<{ id: string }> {
  const repo = (await rt.db.get(
    "SELECT id, connected FROM repositories WHERE workspace_id = ? AND slug = ?",
    [workspaceId, slug],
  )) as { id: string; connected: number } | undefined;
  if (!repo) throw domainError("not_found", `no repository ${slug} in this workspace`);
  if (repo.connected !== 1) {
    throw domainError("invalid_repo", `${slug} is not connected to the workspace`);
  }
  return repo;
}

export async function recordCapabilityRequest(
  rt: CapabilityRuntime,
  who: Caller,
  body: RecordCapabilityBody,
  idempotencyKey: string | null,
): Promise<{ status: 200 | 201; response: RecordCapabilityResponse }> {
  const requestHash = createHash("sha256").update(JSON.stringify(body)).digest("hex");
  const replay = async () =>
    idempotencyKey ? await firstAnswer(rt, who, idempotencyKey, requestHash) : undefined;
  const early = await replay();
  if (early) return early;
  const kind = validated(() => normaliseCapabilityKind(body.capability));
  const target = validated(() => normaliseCapabilityTarget(body.target));
  if (body.reason === undefined && body.evidence === undefined) {
    throw domainError("invalid_request", "reason: required; say what failed and why access is needed");
  }
  const reason = body.reason === undefined ? "" : validated(() => validateCapabilityReason(body.reason!));
  if (body.evidence) checkEvidence(body.evidence);
  const repo = await repositoryOf(rt, who.workspaceId, body.repository);

  const exactMatch = async () =>
    (await requestsWithTarget(rt.db, who.workspaceId, repo.id, target)).find((r) => r.kind === kind);
  let decision: MergeDecision | null = null;
  if (!(await exactMatch())) {
    const existing: MatchExisting[] = (await matchableRequests(rt.db, who.workspaceId, repo.id)).map((r) => ({
      requestId: r.requestId,
      kind: r.kind,
      target: r.target,
      targetForm: r.targetForm,
      reason: r.reason,
    }));
    decision = await decideMerge(
      rt.matcher,
      { candidate: { kind, target: target.value, targetForm: target.form, reason }, existing },
      rt.matcherBudgetMs,
    );
  }

  const now = rt.now();
  const response = await rt.db.transaction(
    async (tx): Promise<{ status: 200 | 201; response: RecordCapabilityResponse }> => {
      // Re-read inside the write lock (SQLite's one writer; on PostgreSQL the workspace's lock, which read
      // committed needs): a concurrent request with the same key, or for the same target, may have committed
      // while the matcher ran. A duplicate gets the first answer, not a second record.
      await tx.lock(capabilityRecordLock(who.workspaceId));
      const duplicate = await replay();
      if (duplicate) return duplicate;
      const exact = await exactMatch();
      const candidate = decision?.requestId ? await getRequest(rt.db, decision.requestId) : undefined;
      const merged = candidate && MATCHABLE_STATUSES.has(candidate.status) ? candidate : undefined;
      const found = exact ?? merged;
      let request: StoredRequest;
      let status: 200 | 201 = 200;
      if (found) {
        request = found;
      } else {
        if (body.evidence) {
          throw domainError("no_matching_request", "no matching request; record it first without --evidence");
        }
        const created = {
          requestId: newId(CAPABILITY_REQUEST_ID_PREFIX.slice(0, -1)),
          workspaceId: who.workspaceId,
          repositoryId: repo.id,
          repository: body.repository,
          kind,
          target: target.value,
          targetForm: target.form,
          reason,
          createdAt: now.toISOString(),
          sandboxId: who.sandboxId,
        };
        await insertRequest(rt.db, created);
        request = (await getRequest(rt.db, created.requestId))!;
        await notifyOwners(rt, request, "new_request", now);
        status = 201;
      }
      let evidence: RecordCapabilityResponse["evidence"] = null;
      if (body.evidence) {
        evidence = {
          outcome: body.evidence.outcome,
          changed: await applyEvidence(rt, request, body.evidence, now),
        };
        request = (await getRequest(rt.db, request.requestId))!;
      }
      const out: RecordCapabilityResponse = {
        request: toWire(request),
        matched: status === 200,
        matchedBy: status === 201 ? null : exact ? "target" : "matcher",
        matcher: decision ? { outcome: decision.outcome, confidence: decision.confidence } : null,
        evidence,
      };
      if (idempotencyKey) {
        await rt.db.run(
          "INSERT INTO capability_idempotency (sandbox_id, idempotency_key, request_hash, response_json, created_at) VALUES (?, ?, ?, ?, ?)",
          [who.sandboxId, idempotencyKey, requestHash, JSON.stringify(out), now.toISOString()],
        );
      }
      return { status, response: out };
    },
  );
  rt.kickMail();
  return response;
}

/**
 * The answer the first request with this Idempotency-Key got (its status too: 201 when it created the request,
 * 200 when it matched one), or undefined for a new key. The same key with other content is 409.
 */
async function firstAnswer(
  rt: CapabilityRuntime,
  who: Caller,
  idempotencyKey: string,
  requestHash: string,
): Promise<{ status: 200 | 201; response: RecordCapabilityResponse } | undefined> {
  const previous = (await rt.db.get(
    "SELECT request_hash, response_json FROM capability_idempotency WHERE sandbox_id = ? AND idempotency_key = ?",
    [who.sandboxId, idempotencyKey],
  )) as { request_hash: string; response_json: string } | undefined;
  if (!previous) return undefined;
  if (previous.request_hash !== requestHash) {
    throw domainError(
      "idempotency_conflict",
      "this Idempotency-Key was used for a different request; use a new key",
    );
  }
  const response = JSON.parse(previous.response_json) as RecordCapabilityResponse;
  return { status: response.matched ? 200 : 201, response };
}

/** Evidence by request id: the request must be in the caller's workspace. */
export async function reportEvidence(
  rt: CapabilityRuntime,
  who: Caller,
  requestId: string,
  body: EvidenceBody,
) {
  checkEvidence(body);
  const now = rt.now();
  const out = await rt.db.transaction(async () => {
    const request = await getRequest(rt.db, requestId);
    if (!request || request.workspaceId !== who.workspaceId)
      throw domainError("not_found", "no such capability request");
    const changed = await applyEvidence(rt, request, body, now);
    return {
      request: toWire((await getRequest(rt.db, requestId))!),
      evidence: { outcome: body.outcome, changed },
    };
  });
  rt.kickMail();
  return out;
}
