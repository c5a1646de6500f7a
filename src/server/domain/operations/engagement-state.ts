// Reads and writes an engagement's naming ledger, its activated repositories and overlay revisions, and a
// repository's current configuration. Callers hold a transaction.
import type { Overlay } from "../../../envfile/overlay.js";
import type { LedgerEntry, NamingLedger } from "../../../naming/index.js";
import { type Readiness, ReadinessSchema } from "../../../transport/wire.js";
import type { Store } from "../../store/store.js";
import type { EnvironmentVersion } from "./managed-startup.js";

export async function loadLedger(db: Store, engagementId: string): Promise<NamingLedger> {
  const rows = (await db.all(
    "SELECT repository_id, repository, variable, assigned, status FROM ledger_entries WHERE engagement_id = ? ORDER BY position",
    [engagementId],
  )) as {
    repository_id: string;
    repository: string;
    variable: string;
    assigned: string;
    status: "live" | "reserved";
  }[];
  return {
    entries: rows.map((r) => ({
      repositoryId: r.repository_id,
      repository: r.repository,
      variable: r.variable,
      assigned: r.assigned,
      status: r.status,
    })),
  };
}

/**
 * Writes what changed since `before` (the ledger as loaded in this transaction; all of it when omitted).
 * Entries only ever grow or turn reserved, so positions stay stable: a changed or new position is one upsert,
 * and an activation that assigns nothing new writes nothing.
 */
export async function saveLedger(
  db: Store,
  engagementId: string,
  entries: readonly LedgerEntry[],
  before?: readonly LedgerEntry[],
): Promise<void> {
  if (!before) await db.run("DELETE FROM ledger_entries WHERE engagement_id = ?", [engagementId]);
  // In order, one statement at a time: the rows are written within the caller's transaction.
  for (const [i, e] of entries.entries()) {
    const old = before?.[i];
    const same =
      old?.repositoryId === e.repositoryId &&
      old.repository === e.repository &&
      old.variable === e.variable &&
      old.assigned === e.assigned &&
      old.status === e.status;
    if (same) continue;
    await db.run(
      `INSERT INTO ledger_entries (engagement_id, position, repository_id, repository, variable, assigned, status)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (engagement_id, position) DO UPDATE SET repository_id = excluded.repository_id,
         repository = excluded.repository, variable = excluded.variable, assigned = excluded.assigned,
         status = excluded.status`,
      [engagementId, i, e.repositoryId, e.repository, e.variable, e.assigned, e.status],
    );
  }
}

export async function disconnectedRepositoryIds(db: Store, workspaceId: string): Promise<Set<string>> {
  return new Set(
    (
      (await db.all("SELECT id FROM repositories WHERE workspace_id = ? AND connected = 0", [
        workspaceId,
      ])) as {
        id: string;
      }[]
    ).map((r) => r.id),
  );
}

export async function rememberActivatedRepository(
  db: Store,
  engagementId: string,
  repositoryId: string,
): Promise<void> {
  await db.run(
    `INSERT INTO engagement_repositories (engagement_id, repository_id, position)
     SELECT ?, ?, COALESCE(MAX(position), -1) + 1 FROM engagement_repositories WHERE engagement_id = ?
     ON CONFLICT (engagement_id, repository_id) DO NOTHING`,
    [engagementId, repositoryId, engagementId],
  );
}

export async function loadCurrentVersion(
  db: Store,
  repositoryId: string,
): Promise<EnvironmentVersion | undefined> {
  const row = (await db.get(
    `SELECT v.* FROM environment_versions v JOIN repositories r
         ON r.id = v.repository_id AND r.current_version_id = v.version_id WHERE r.id = ?`,
    [repositoryId],
  )) as EnvironmentVersionRow | undefined;
  return row ? toEnvironmentVersion(row) : undefined;
}

/** An `environment_versions` row: the columns the managed-startup handoff reads. */
export type EnvironmentVersionRow = {
  version_id: string;
  dockerfile_path: string | null;
  agent_instructions_path: string | null;
  startup_script_path: string | null;
  run_path: string | null;
  evidence_path: string | null;
  readiness_json: string;
  startup_timeout_seconds: number | null;
};

/** An `environment_versions` row as the managed-startup handoff reads it. */
export function toEnvironmentVersion(row: EnvironmentVersionRow): EnvironmentVersion {
  return {
    versionId: row.version_id,
    dockerfilePath: row.dockerfile_path,
    agentInstructionsPath: row.agent_instructions_path,
    startupScriptPath: row.startup_script_path,
    runPath: row.run_path,
    evidencePath: row.evidence_path,
    readiness: parseReadiness(row.readiness_json),
    startupTimeoutSeconds: row.startup_timeout_seconds,
  };
}

// Parsed readiness documents by their stored text: every activation of a repository reads the same one, and
// the zod parse cost more than the query. Bounded; frozen, since every caller shares the object.
const readinessByText = new Map<string, Readiness>();
const READINESS_CACHE_SIZE = 1024;

function parseReadiness(text: string): Readiness {
  let parsed = readinessByText.get(text);
  if (!parsed) {
    parsed = deepFreeze(ReadinessSchema.parse(JSON.parse(text)));
    if (readinessByText.size >= READINESS_CACHE_SIZE) readinessByText.clear();
    readinessByText.set(text, parsed);
  }
  return parsed;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

export async function nextOverlayRevision(db: Store, engagementId: string): Promise<number> {
  return (
    (await db.get(
      "UPDATE engagements SET overlay_revision = overlay_revision + 1 WHERE id = ? RETURNING overlay_revision",
      [engagementId],
    )) as { overlay_revision: number }
  ).overlay_revision;
}

export async function saveOverlay(
  db: Store,
  engagementId: string,
  operationId: string,
  overlay: Overlay,
  now: Date,
): Promise<void> {
  await db.run(
    "INSERT INTO overlay_revisions (engagement_id, revision, operation_id, document_json, created_at) VALUES (?, ?, ?, ?, ?)",
    [engagementId, overlay.revision, operationId, JSON.stringify(overlay), now.toISOString()],
  );
}

export async function loadOverlay(
  db: Store,
  engagementId: string,
  revision: number,
): Promise<Overlay | undefined> {
  const row = (await db.get(
    "SELECT document_json FROM overlay_revisions WHERE engagement_id = ? AND revision = ?",
    [engagementId, revision],
  )) as { document_json: string } | undefined;
  return row ? (JSON.parse(row.document_json) as Overlay) : undefined;
}
