// The sandbox manager's rows: boxes, pinned images and lifecycle transitions. Plain functions over the store.
import type { Store } from "../../store/store.js";
import type { SandboxState, Transition } from "./lifecycle.js";

export interface BoxRow {
  sandboxId: string;
  workspaceId: string;
  engagementId: string;
  driver: string;
  boxRef: string | null;
  image: string;
  repository: string | null;
  state: SandboxState;
  lastActivityAtMs: number;
  stateChangedAtMs: number;
  createdAtMs: number;
  reach: Record<string, string>;
  batonrc: unknown;
  preClone: PreCloneRecord[];
  /** The instance that runs the box's driver (InstanceIdentity.id), its machine, and until when it holds it. */
  ownerInstance: string | null;
  ownerMachine: string | null;
  ownerLeaseUntilMs: number | null;
}

export interface PreCloneRecord {
  command: string;
  exitCode: number;
  timedOut: boolean;
  durationMs: number;
  /** Sanitised and bounded; never a secret value. */
  output: string;
}

interface RawRow {
  sandbox_id: string;
  workspace_id: string;
  engagement_id: string;
  driver: string;
  box_ref: string | null;
  image: string;
  repository: string | null;
  state: SandboxState;
  last_activity_at_ms: number;
  state_changed_at_ms: number;
  created_at_ms: number;
  reach_json: string;
  batonrc_json: string | null;
  pre_clone_json: string;
  owner_instance: string | null;
  owner_machine: string | null;
  owner_lease_until_ms: number | null;
}

function toRow(raw: RawRow): BoxRow {
  return {
    sandboxId: raw.sandbox_id,
    workspaceId: raw.workspace_id,
    engagementId: raw.engagement_id,
    driver: raw.driver,
    boxRef: raw.box_ref,
    image: raw.image,
    repository: raw.repository,
    state: raw.state,
    lastActivityAtMs: raw.last_activity_at_ms,
    stateChangedAtMs: raw.state_changed_at_ms,
    createdAtMs: raw.created_at_ms,
    reach: JSON.parse(raw.reach_json) as Record<string, string>,
    batonrc: raw.batonrc_json === null ? null : JSON.parse(raw.batonrc_json),
    preClone: JSON.parse(raw.pre_clone_json) as PreCloneRecord[],
    ownerInstance: raw.owner_instance,
    ownerMachine: raw.owner_machine,
    ownerLeaseUntilMs: raw.owner_lease_until_ms === null ? null : Number(raw.owner_lease_until_ms),
  };
}

type OwnerColumns = "ownerInstance" | "ownerMachine" | "ownerLeaseUntilMs";

/** Records a new box; without an owner when none is given (a box no instance's driver runs yet). */
export async function insertBox(
  db: Store,
  row: Omit<BoxRow, "preClone" | OwnerColumns> & Partial<Pick<BoxRow, OwnerColumns>>,
): Promise<void> {
  await db.run(
    `INSERT INTO sandbox_boxes (sandbox_id, workspace_id, engagement_id, driver, box_ref, image, repository, state,
       last_activity_at_ms, state_changed_at_ms, created_at_ms, reach_json, batonrc_json, owner_instance,
       owner_machine, owner_lease_until_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      row.sandboxId,
      row.workspaceId,
      row.engagementId,
      row.driver,
      row.boxRef,
      row.image,
      row.repository,
      row.state,
      row.lastActivityAtMs,
      row.stateChangedAtMs,
      row.createdAtMs,
      JSON.stringify(row.reach),
      row.batonrc === null ? null : JSON.stringify(row.batonrc),
      row.ownerInstance ?? null,
      row.ownerMachine ?? null,
      row.ownerLeaseUntilMs ?? null,
    ],
  );
  await recordTransition(
    db,
    row.sandboxId,
    { from: null, to: row.state, reason: "created" },
    row.createdAtMs,
  );
}

export async function getBox(db: Store, sandboxId: string): Promise<BoxRow | undefined> {
  const raw = (await db.get("SELECT * FROM sandbox_boxes WHERE sandbox_id = ?", [sandboxId])) as
    | RawRow
    | undefined;
  return raw && toRow(raw);
}

/** The engagement's newest box that is not deleted (the one a follow-up reuses). */
export async function latestBoxOf(db: Store, engagementId: string): Promise<BoxRow | undefined> {
  const raw = (await db.get(
    "SELECT * FROM sandbox_boxes WHERE engagement_id = ? AND state <> 'deleted' ORDER BY created_at_ms DESC, sandbox_id DESC LIMIT 1",
    [engagementId],
  )) as RawRow | undefined;
  return raw && toRow(raw);
}

export async function listBoxes(
  db: Store,
  filter: { workspaceId?: string; live?: boolean } = {},
): Promise<BoxRow[]> {
  const where: string[] = [];
  const args: string[] = [];
  if (filter.workspaceId) {
    where.push("workspace_id = ?");
    args.push(filter.workspaceId);
  }
  if (filter.live) where.push("state <> 'deleted'");
  const sql = `SELECT * FROM sandbox_boxes ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at_ms, sandbox_id`;
  return ((await db.all(sql, [...args])) as unknown as RawRow[]).map(toRow);
}

export async function applyTransition(
  db: Store,
  sandboxId: string,
  transition: Transition,
  atMs: number,
): Promise<void> {
  await db.run("UPDATE sandbox_boxes SET state = ?, state_changed_at_ms = ? WHERE sandbox_id = ?", [
    transition.to,
    atMs,
    sandboxId,
  ]);
  if (transition.reason === "activity")
    await db.run("UPDATE sandbox_boxes SET last_activity_at_ms = ? WHERE sandbox_id = ?", [atMs, sandboxId]);
  await recordTransition(db, sandboxId, transition, atMs);
}

async function recordTransition(
  db: Store,
  sandboxId: string,
  transition: { from: SandboxState | null; to: SandboxState; reason: string },
  atMs: number,
): Promise<void> {
  await db.run(
    "INSERT INTO sandbox_transitions (sandbox_id, from_state, to_state, reason, at_ms) VALUES (?, ?, ?, ?, ?)",
    [sandboxId, transition.from, transition.to, transition.reason, atMs],
  );
}

/** Any operation, command or lease use: the idle clock starts again. */
export async function touchActivity(db: Store, sandboxId: string, atMs: number): Promise<void> {
  // On every authenticated operations request: one cached statement, a primary-key update (no row: no-op).
  await db.run(
    "UPDATE sandbox_boxes SET last_activity_at_ms = CASE WHEN last_activity_at_ms > ? THEN last_activity_at_ms ELSE ? END WHERE sandbox_id = ? AND state <> 'deleted'",
    [atMs, atMs, sandboxId],
  );
}

export async function setPreClone(
  db: Store,
  sandboxId: string,
  records: readonly PreCloneRecord[],
): Promise<void> {
  await db.run("UPDATE sandbox_boxes SET pre_clone_json = ? WHERE sandbox_id = ?", [
    JSON.stringify(records),
    sandboxId,
  ]);
}

export interface TransitionRecord {
  from: SandboxState | null;
  to: SandboxState;
  reason: string;
  at: string;
}

export async function transitionsOf(db: Store, sandboxId: string): Promise<TransitionRecord[]> {
  const rows = (await db.all(
    "SELECT from_state, to_state, reason, at_ms FROM sandbox_transitions WHERE sandbox_id = ? ORDER BY seq",
    [sandboxId],
  )) as {
    from_state: SandboxState | null;
    to_state: SandboxState;
    reason: string;
    at_ms: number;
  }[];
  return rows.map((r) => ({
    from: r.from_state,
    to: r.to_state,
    reason: r.reason,
    at: new Date(r.at_ms).toISOString(),
  }));
}

export type ImageSource = "default" | "snapshot_name" | "request";

export async function pinnedImageOf(
  db: Store,
  engagementId: string,
): Promise<{ image: string; source: ImageSource } | undefined> {
  return (await db.get("SELECT image, source FROM engagement_images WHERE engagement_id = ?", [
    engagementId,
  ])) as { image: string; source: ImageSource } | undefined;
}

/** Pins the image to the engagement unless one is pinned already; returns the pinned one. */
export async function pinImage(
  db: Store,
  engagementId: string,
  image: string,
  source: ImageSource,
  atMs: number,
): Promise<{ image: string; source: ImageSource }> {
  await db.run(
    "INSERT INTO engagement_images (engagement_id, image, source, pinned_at_ms) VALUES (?, ?, ?, ?) ON CONFLICT (engagement_id) DO NOTHING",
    [engagementId, image, source, atMs],
  );
  return (await pinnedImageOf(db, engagementId))!;
}
