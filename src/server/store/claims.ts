// Claiming work with a lease, on either engine: an instance takes one ready row, marks it with its name and a
// lease deadline, and keeps it only while it renews the lease; when an instance dies its rows become
// claimable again once their leases run out. Generic over the table: it needs a one-column key (`id` unless the
// request names another), `claimed_by` (text, NULL when free) and `lease_until_ms` (integer milliseconds); what
// "ready" means is the caller's.
import { checkIdentifier, checkOrderBy } from "./identifiers.js";
import type { Queryable, SqlValue, Store } from "./store.js";

/** The columns a claimable table adds, for its CREATE TABLE (both engines). */
export const CLAIM_COLUMNS_DDL = "claimed_by TEXT, lease_until_ms BIGINT";

export interface ClaimRequest {
  /** The table to claim from (a plain identifier). */
  table: string;
  /** The table's one-column key; `id` when omitted. */
  key?: string;
  /** The SQL condition a row must meet to be worth claiming, with `?` placeholders for `params`. */
  ready: string;
  params?: readonly SqlValue[];
  /** Which ready row first: plain column names, each optionally ASC or DESC (e.g. "created_ms, id"). */
  order: string;
  /** Who claims: the instance (or worker) name that renews, releases and finishes the claim. */
  owner: string;
  leaseMs: number;
  /** The current time in milliseconds since the epoch (passed in, as every clock is). */
  now: number;
}

export interface ClaimedRow {
  /** The row's key (also under the key column's own name when that is not `id`). */
  id: SqlValue;
  claimed_by: string;
  lease_until_ms: number;
  [column: string]: unknown;
}

/** A row no one holds, or whose holder's lease ended before the `?` it takes (now, in milliseconds). */
const FREE = "(claimed_by IS NULL OR lease_until_ms < ?)";

/**
 * Claims the first ready row that no one holds (or whose holder's lease has run out) and returns it as it is
 * after the claim, or undefined when there is none. On PostgreSQL the inner SELECT skips rows that concurrent
 * claimers have locked, so claimers never wait on each other; SQLite runs the claim inside its exclusive write
 * transaction. The outer WHERE repeats the free-or-expired test so a row can never be claimed twice even if a
 * concurrent claim committed between the inner SELECT and the UPDATE.
 */
export async function claimNext(store: Store, request: ClaimRequest): Promise<ClaimedRow | undefined> {
  const table = checkIdentifier(request.table, "the claim table");
  const key = checkIdentifier(request.key ?? "id", "the claim key");
  const order = checkOrderBy(request.order);
  checkLease(request.leaseMs);
  const sql =
    `UPDATE ${table} SET claimed_by = ?, lease_until_ms = ? ` +
    `WHERE ${FREE} AND ${key} = (SELECT ${key} FROM ${table} WHERE (${request.ready}) AND ${FREE} ` +
    `ORDER BY ${order} LIMIT 1${store.dialect.skipLocked}) RETURNING *`;
  const params = [
    request.owner,
    request.now + request.leaseMs,
    request.now,
    ...(request.params ?? []),
    request.now,
  ];
  const row = await store.transaction((tx) => tx.get<ClaimedRow>(sql, params));
  return row && { ...row, id: row[key] as SqlValue };
}

/**
 * Whether `claimNext` would find a row: one that is `ready` and free at `now`. A plain read, so an idle worker can
 * poll for work without opening a write transaction each time.
 */
export async function anyClaimable(
  store: Store,
  request: { table: string; ready: string; params?: readonly SqlValue[]; now: number },
): Promise<boolean> {
  const table = checkIdentifier(request.table, "the claim table");
  const sql = `SELECT 1 AS due FROM ${table} WHERE (${request.ready}) AND ${FREE} LIMIT 1`;
  return (await store.get(sql, [...(request.params ?? []), request.now])) !== undefined;
}

export interface HeldClaim {
  table: string;
  /** The table's one-column key; `id` when omitted. */
  key?: string;
  id: SqlValue;
  owner: string;
}

/**
 * Moves the lease of a claim `owner` still holds to `now + leaseMs`. False when the claim is lost: another
 * owner took the row over after the lease ran out, or it was released or finished. (A lease that ran out but
 * that no one has taken over yet is still the owner's, and renewing it is safe: the UPDATE is atomic.)
 */
export async function renewLease(
  db: Queryable,
  claim: HeldClaim & { leaseMs: number; now: number },
): Promise<boolean> {
  const table = checkIdentifier(claim.table, "the claim table");
  const key = checkIdentifier(claim.key ?? "id", "the claim key");
  checkLease(claim.leaseMs);
  const { changes } = await db.run(
    `UPDATE ${table} SET lease_until_ms = ? WHERE ${key} = ? AND claimed_by = ?`,
    [claim.now + claim.leaseMs, claim.id, claim.owner],
  );
  return changes === 1;
}

/** Gives an unfinished row back, claimable at once by anyone. False when `owner` no longer held it. */
export async function releaseClaim(db: Queryable, claim: HeldClaim): Promise<boolean> {
  return finishClaim(db, { ...claim, set: {} });
}

/**
 * Ends a claim and, in the same UPDATE, sets the columns in `set` (typically a state that is no longer ready).
 * False when `owner` no longer held the row, and then nothing is written. Pass a transaction to finish the
 * claim together with other writes.
 */
export async function finishClaim(
  db: Queryable,
  claim: HeldClaim & { set: Record<string, SqlValue> },
): Promise<boolean> {
  const table = checkIdentifier(claim.table, "the claim table");
  const key = checkIdentifier(claim.key ?? "id", "the claim key");
  const columns = Object.keys(claim.set).map((column) => checkIdentifier(column, "the column"));
  const assignments = [
    ...columns.map((column) => `${column} = ?`),
    "claimed_by = NULL",
    "lease_until_ms = NULL",
  ];
  const { changes } = await db.run(
    `UPDATE ${table} SET ${assignments.join(", ")} WHERE ${key} = ? AND claimed_by = ?`,
    [...columns.map((column) => claim.set[column]!), claim.id, claim.owner],
  );
  return changes === 1;
}

function checkLease(leaseMs: number): void {
  if (!Number.isSafeInteger(leaseMs) || leaseMs <= 0) {
    throw new RangeError(`a claim's lease must be a positive whole number of milliseconds, not ${leaseMs}`);
  }
}

/**
 * Renews every lease `owner` holds in the table at once (one statement per tick however much it runs), to
 * `now + leaseMs`; the number renewed. A row another owner took over is not the owner's any more and stays so.
 */
export async function renewLeasesOf(
  db: Queryable,
  claims: { table: string; owner: string; leaseMs: number; now: number },
): Promise<number> {
  const table = checkIdentifier(claims.table, "the claim table");
  checkLease(claims.leaseMs);
  const { changes } = await db.run(`UPDATE ${table} SET lease_until_ms = ? WHERE claimed_by = ?`, [
    claims.now + claims.leaseMs,
    claims.owner,
  ]);
  return changes;
}

/**
 * Makes every claim in the table held by anyone but `owner` claimable at once. Only for a store no other
 * instance can be using (SQLite, whose lock file admits one service): whoever held those claims is dead.
 */
export async function expireOthersClaims(db: Queryable, table: string, owner: string): Promise<number> {
  const checked = checkIdentifier(table, "the claim table");
  const { changes } = await db.run(
    `UPDATE ${checked} SET lease_until_ms = 0 WHERE claimed_by IS NOT NULL AND claimed_by <> ?`,
    [owner],
  );
  return changes;
}
