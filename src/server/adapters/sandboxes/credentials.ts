// Sandboxes (lease) and turns (authorisation) for an engagement. Only sha256 hashes of the credentials are kept;
// the credentials themselves are returned once, to the admin caller.

import { hashCredential, newCredential, newId } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";

export const DEFAULT_LEASE_TTL_SECONDS = 2 * 60 * 60;
export const DEFAULT_TURN_TTL_SECONDS = 60 * 60;

export type CredentialFailure = "workspace_not_found" | "engagement_not_found" | "engagement_elsewhere";

export interface IssuedSandbox {
  sandboxId: string;
  engagementId: string;
  lease: string;
  turnToken: string;
  leaseExpiresAt: string;
  turnExpiresAt: string;
}

export async function issueSandbox(
  db: Store,
  input: { workspaceId: string; engagementId: string; leaseTtlSeconds?: number; turnTtlSeconds?: number },
  now: Date,
): Promise<IssuedSandbox | CredentialFailure> {
  return await db.transaction(async () => issueSandboxWithin(db, input, now));
}

/** `issueSandbox` inside the caller's transaction (the task engine issues a turn's credentials as it begins it). */
export async function issueSandboxWithin(
  db: Store,
  input: { workspaceId: string; engagementId: string; leaseTtlSeconds?: number; turnTtlSeconds?: number },
  now: Date,
): Promise<IssuedSandbox | CredentialFailure> {
  if (!(await db.get("SELECT 1 FROM workspaces WHERE id = ?", [input.workspaceId])))
    return "workspace_not_found";
  const engagement = (await db.get("SELECT workspace_id FROM engagements WHERE id = ?", [
    input.engagementId,
  ])) as { workspace_id: string } | undefined;
  if (engagement && engagement.workspace_id !== input.workspaceId) return "engagement_elsewhere";
  if (!engagement) {
    await db.run("INSERT INTO engagements (id, workspace_id, created_at) VALUES (?, ?, ?)", [
      input.engagementId,
      input.workspaceId,
      now.toISOString(),
    ]);
  }
  const sandboxId = newId("sbx");
  const lease = newCredential("btl");
  const leaseExpires = new Date(now.getTime() + (input.leaseTtlSeconds ?? DEFAULT_LEASE_TTL_SECONDS) * 1000);
  await db.run(
    "INSERT INTO sandboxes (id, engagement_id, lease_hash, lease_expires_at_ms, created_at) VALUES (?, ?, ?, ?, ?)",
    [sandboxId, input.engagementId, hashCredential(lease), leaseExpires.getTime(), now.toISOString()],
  );
  const turn = await insertTurn(db, input.engagementId, input.turnTtlSeconds, now);
  return {
    sandboxId,
    engagementId: input.engagementId,
    lease,
    turnToken: turn.turnToken,
    leaseExpiresAt: leaseExpires.toISOString(),
    turnExpiresAt: turn.turnExpiresAt,
  };
}

export async function issueTurn(
  db: Store,
  input: { engagementId: string; ttlSeconds?: number },
  now: Date,
): Promise<{ turnToken: string; turnExpiresAt: string } | CredentialFailure> {
  return await db.transaction(async () => issueTurnWithin(db, input, now));
}

/**
 * Keeps a sandbox's lease (same value) valid for another `ttlSeconds` from `now`, inside the caller's transaction:
 * a box reused by a follow-up turn keeps the lease its files and shells already hold.
 */
export async function extendLeaseWithin(
  db: Store,
  input: { sandboxId: string; engagementId: string; ttlSeconds?: number },
  now: Date,
): Promise<string> {
  const expires = now.getTime() + (input.ttlSeconds ?? DEFAULT_LEASE_TTL_SECONDS) * 1000;
  await db.run(
    "UPDATE sandboxes SET lease_expires_at_ms = CASE WHEN lease_expires_at_ms > ? THEN lease_expires_at_ms ELSE ? END WHERE id = ? AND engagement_id = ?",
    [expires, expires, input.sandboxId, input.engagementId],
  );
  return new Date(expires).toISOString();
}

/** `issueTurn` inside the caller's transaction. */
export async function issueTurnWithin(
  db: Store,
  input: { engagementId: string; ttlSeconds?: number },
  now: Date,
): Promise<{ turnToken: string; turnExpiresAt: string } | CredentialFailure> {
  if (!(await db.get("SELECT 1 FROM engagements WHERE id = ?", [input.engagementId])))
    return "engagement_not_found";
  return insertTurn(db, input.engagementId, input.ttlSeconds, now);
}

async function insertTurn(db: Store, engagementId: string, ttlSeconds: number | undefined, now: Date) {
  const turnToken = newCredential("btt");
  const expires = new Date(now.getTime() + (ttlSeconds ?? DEFAULT_TURN_TTL_SECONDS) * 1000);
  await db.run(
    "INSERT INTO turns (id, engagement_id, token_hash, expires_at_ms, created_at) VALUES (?, ?, ?, ?, ?)",
    [newId("turn"), engagementId, hashCredential(turnToken), expires.getTime(), now.toISOString()],
  );
  return { turnToken, turnExpiresAt: expires.toISOString() };
}

/**
 * A follow-up reusing an existing sandbox: a fresh lease for the same sandbox id (the old lease stops working)
 * and a new turn. The caller has checked that the sandbox belongs to the engagement.
 */
export async function renewSandbox(
  db: Store,
  input: { sandboxId: string; engagementId: string; leaseTtlSeconds?: number; turnTtlSeconds?: number },
  now: Date,
): Promise<IssuedSandbox> {
  return await db.transaction(async () => renewSandboxWithin(db, input, now));
}

/** `renewSandbox` inside the caller's transaction (a restarted service resuming a turn in an adopted box). */
export async function renewSandboxWithin(
  db: Store,
  input: { sandboxId: string; engagementId: string; leaseTtlSeconds?: number; turnTtlSeconds?: number },
  now: Date,
): Promise<IssuedSandbox> {
  const lease = newCredential("btl");
  const leaseExpires = new Date(now.getTime() + (input.leaseTtlSeconds ?? DEFAULT_LEASE_TTL_SECONDS) * 1000);
  await db.run(
    "UPDATE sandboxes SET lease_hash = ?, lease_expires_at_ms = ? WHERE id = ? AND engagement_id = ?",
    [hashCredential(lease), leaseExpires.getTime(), input.sandboxId, input.engagementId],
  );
  const turn = await insertTurn(db, input.engagementId, input.turnTtlSeconds, now);
  return {
    sandboxId: input.sandboxId,
    engagementId: input.engagementId,
    lease,
    turnToken: turn.turnToken,
    leaseExpiresAt: leaseExpires.toISOString(),
    turnExpiresAt: turn.turnExpiresAt,
  };
}
