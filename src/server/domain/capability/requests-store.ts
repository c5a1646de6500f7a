// Reads and writes of capability_requests rows. Rows are mapped to the wire shape here, and legacy kind labels
// stored by older versions are normalised on read.
import { tryNormaliseCapabilityKind } from "../../../capability/kinds.js";
import type { CapabilityState, CapabilityStatus, EvidenceOutcome } from "../../../capability/transitions.js";
import type { CapabilityRequest } from "../../../transport/wire.js";
import type { Store } from "../../store/store.js";

interface Row {
  id: string;
  workspace_id: string;
  repository_id: string;
  repository: string;
  kind: string;
  target: string;
  target_form: "host" | "name";
  reason: string;
  status: CapabilityStatus;
  access_supplied: number;
  bound_secret_id: string | null;
  last_outcome: EvidenceOutcome | null;
  last_outcome_status: number | null;
  last_outcome_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface StoredRequest extends CapabilityRequest {
  boundSecretId: string | null;
}

function fromRow(row: Row): StoredRequest {
  return {
    requestId: row.id,
    workspaceId: row.workspace_id,
    repositoryId: row.repository_id,
    repository: row.repository,
    kind: tryNormaliseCapabilityKind(row.kind) ?? "other",
    target: row.target,
    targetForm: row.target_form,
    reason: row.reason,
    status: row.status,
    accessSupplied: row.access_supplied === 1,
    lastOutcome:
      row.last_outcome === null
        ? null
        : {
            outcome: row.last_outcome,
            status: row.last_outcome_status,
            at: row.last_outcome_at ?? row.updated_at,
          },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    boundSecretId: row.bound_secret_id,
  };
}

/** The wire shape, without store-only fields. */
export function toWire(request: StoredRequest): CapabilityRequest {
  const { boundSecretId: _bound, ...wire } = request;
  return wire;
}

export const stateOf = (r: StoredRequest): CapabilityState => ({
  status: r.status,
  accessSupplied: r.accessSupplied,
});

export async function getRequest(db: Store, id: string): Promise<StoredRequest | undefined> {
  const row = (await db.get("SELECT * FROM capability_requests WHERE id = ?", [id])) as Row | undefined;
  return row && fromRow(row);
}

export async function requestsOfRepository(
  db: Store,
  workspaceId: string,
  repositoryId: string,
): Promise<StoredRequest[]> {
  const rows = (await db.all(
    "SELECT * FROM capability_requests WHERE workspace_id = ? AND repository_id = ? ORDER BY created_at, id",
    [workspaceId, repositoryId],
  )) as unknown as Row[];
  return rows.map(fromRow);
}

/** Requests with this exact normalised target (any kind; the caller compares normalised kinds). */
export async function requestsWithTarget(
  db: Store,
  workspaceId: string,
  repositoryId: string,
  target: { form: "host" | "name"; value: string },
): Promise<StoredRequest[]> {
  const rows = (await db.all(
    "SELECT * FROM capability_requests WHERE workspace_id = ? AND repository_id = ? AND target = ? AND target_form = ? ORDER BY created_at, id",
    [workspaceId, repositoryId, target.value, target.form],
  )) as unknown as Row[];
  return rows.map(fromRow);
}

/** Requests the semantic matcher may merge into (open, verification_pending, repair_needed). */
export async function matchableRequests(
  db: Store,
  workspaceId: string,
  repositoryId: string,
): Promise<StoredRequest[]> {
  const rows = (await db.all(
    `SELECT * FROM capability_requests WHERE workspace_id = ? AND repository_id = ?
       AND status IN ('open', 'verification_pending', 'repair_needed') ORDER BY created_at, id`,
    [workspaceId, repositoryId],
  )) as unknown as Row[];
  return rows.map(fromRow);
}

export async function requestsBoundTo(db: Store, secretId: string): Promise<StoredRequest[]> {
  const rows = (await db.all("SELECT * FROM capability_requests WHERE bound_secret_id = ?", [
    secretId,
  ])) as unknown as Row[];
  return rows.map(fromRow);
}

export async function insertRequest(
  db: Store,
  r: Omit<StoredRequest, "status" | "accessSupplied" | "lastOutcome" | "boundSecretId" | "updatedAt"> & {
    sandboxId: string | null;
  },
): Promise<void> {
  await db.run(
    `INSERT INTO capability_requests (id, workspace_id, repository_id, repository, kind, target, target_form, reason,
       status, access_supplied, sandbox_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'open', 0, ?, ?, ?)`,
    [
      r.requestId,
      r.workspaceId,
      r.repositoryId,
      r.repository,
      r.kind,
      r.target,
      r.targetForm,
      r.reason,
      r.sandboxId,
      r.createdAt,
      r.createdAt,
    ],
  );
}

export async function saveState(
  db: Store,
  id: string,
  state: CapabilityState,
  at: string,
  extra: { boundSecretId?: string } = {},
): Promise<void> {
  await db.run(
    `UPDATE capability_requests SET status = ?, access_supplied = ?, updated_at = ?,
       bound_secret_id = COALESCE(?, bound_secret_id) WHERE id = ?`,
    [state.status, state.accessSupplied ? 1 : 0, at, extra.boundSecretId ?? null, id],
  );
}

export async function recordOutcome(
  db: Store,
  id: string,
  input: {
    outcome: EvidenceOutcome;
    httpStatus: number | null;
    before: CapabilityStatus;
    after: CapabilityStatus;
  },
  at: string,
): Promise<void> {
  await db.run(
    "UPDATE capability_requests SET last_outcome = ?, last_outcome_status = ?, last_outcome_at = ?, updated_at = ? WHERE id = ?",
    [input.outcome, input.httpStatus, at, at, id],
  );
  await db.run(
    "INSERT INTO capability_evidence (request_id, outcome, http_status, status_before, status_after, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    [id, input.outcome, input.httpStatus, input.before, input.after, at],
  );
}
