// The service's records of tracker connections: which tracker organisation a workspace is connected to, the
// workspace's OAuth token (sealed at rest with the operator's key, like repository secrets; the app's own user
// posts replies with it), and each member's own token and identity, with which the ticket search reads "as the
// caller". The install callback writes these; the adapter and the webhook worker read them. Plain functions over
// the store, run inside the caller's transaction; only `open*Token` decrypt.
import type { SecretBox } from "../../primitives/secret-box.js";
import type { Store } from "../../store/store.js";

export interface OAuthTokens {
  accessToken: string;
  refreshToken: string | null;
  /** Epoch ms, or null when the token does not expire. */
  expiresAtMs: number | null;
}

export interface TrackerConnection {
  workspaceId: string;
  organizationId: string;
  organizationName: string;
  /** The tracker user the app acts as (issues assigned to it start tasks); null when unknown. */
  agentUserId: string | null;
}

const workspaceScope = (workspaceId: string) => `tracker-connection/${workspaceId}`;
const memberScope = (workspaceId: string, userId: string) => `tracker-member/${workspaceId}/${userId}`;

interface ConnectionRow {
  workspace_id: string;
  organization_id: string;
  organization_name: string;
  agent_user_id: string | null;
}

const toConnection = (row: ConnectionRow): TrackerConnection => ({
  workspaceId: row.workspace_id,
  organizationId: row.organization_id,
  organizationName: row.organization_name,
  agentUserId: row.agent_user_id,
});

export async function connectionOfWorkspace(
  db: Store,
  workspaceId: string,
): Promise<TrackerConnection | undefined> {
  const row = (await db.get(
    "SELECT workspace_id, organization_id, organization_name, agent_user_id FROM tracker_connections WHERE workspace_id = ?",
    [workspaceId],
  )) as ConnectionRow | undefined;
  return row && toConnection(row);
}

export async function connectionOfOrganization(
  db: Store,
  organizationId: string,
): Promise<TrackerConnection | undefined> {
  const row = (await db.get(
    "SELECT workspace_id, organization_id, organization_name, agent_user_id FROM tracker_connections WHERE organization_id = ?",
    [organizationId],
  )) as ConnectionRow | undefined;
  return row && toConnection(row);
}

export class OrganizationElsewhereError extends Error {
  override readonly name = "OrganizationElsewhereError";
}

/** Connects the workspace to the organisation (or refreshes the connection) and marks its tracker connected. */
export async function recordConnection(
  db: Store,
  box: SecretBox,
  input: Omit<TrackerConnection, "agentUserId"> & { agentUserId: string | null; tokens: OAuthTokens | null },
  now: Date,
): Promise<void> {
  const other = await connectionOfOrganization(db, input.organizationId);
  if (other && other.workspaceId !== input.workspaceId)
    throw new OrganizationElsewhereError(
      `tracker organisation ${input.organizationName} is connected to another workspace`,
    );
  const scope = workspaceScope(input.workspaceId);
  await db.run(
    `INSERT INTO tracker_connections (workspace_id, organization_id, organization_name, agent_user_id, token_sealed,
       refresh_sealed, expires_at_ms, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (workspace_id) DO UPDATE SET organization_id = excluded.organization_id,
       organization_name = excluded.organization_name, agent_user_id = coalesce(excluded.agent_user_id, tracker_connections.agent_user_id),
       token_sealed = coalesce(excluded.token_sealed, tracker_connections.token_sealed),
       refresh_sealed = coalesce(excluded.refresh_sealed, tracker_connections.refresh_sealed),
       expires_at_ms = coalesce(excluded.expires_at_ms, tracker_connections.expires_at_ms)`,
    [
      input.workspaceId,
      input.organizationId,
      input.organizationName,
      input.agentUserId,
      input.tokens ? box.seal(scope, input.tokens.accessToken) : null,
      input.tokens?.refreshToken ? box.seal(`${scope}/refresh`, input.tokens.refreshToken) : null,
      input.tokens?.expiresAtMs ?? null,
      now.toISOString(),
    ],
  );
  await db.run("UPDATE workspaces SET tracker_connected = 1 WHERE id = ?", [input.workspaceId]);
}

/** The organisation removed the app (or an admin disconnected it): tokens go, members' links are unbound. */
export async function removeConnection(db: Store, workspaceId: string): Promise<void> {
  await db.run("DELETE FROM tracker_connections WHERE workspace_id = ?", [workspaceId]);
  await db.run("DELETE FROM tracker_member_tokens WHERE workspace_id = ?", [workspaceId]);
  await db.run("UPDATE members SET tracker_identity_bound = 0 WHERE workspace_id = ?", [workspaceId]);
  await db.run("UPDATE workspaces SET tracker_connected = 0 WHERE id = ?", [workspaceId]);
}

/** The workspace's own token (opened), or null when the connection holds none. */
export async function openConnectionTokens(
  db: Store,
  box: SecretBox,
  workspaceId: string,
): Promise<OAuthTokens | null> {
  const row = (await db.get(
    "SELECT token_sealed, refresh_sealed, expires_at_ms FROM tracker_connections WHERE workspace_id = ?",
    [workspaceId],
  )) as
    | { token_sealed: string | null; refresh_sealed: string | null; expires_at_ms: number | null }
    | undefined;
  if (!row?.token_sealed) return null;
  const scope = workspaceScope(workspaceId);
  return {
    accessToken: box.open(scope, row.token_sealed),
    refreshToken: row.refresh_sealed ? box.open(`${scope}/refresh`, row.refresh_sealed) : null,
    expiresAtMs: row.expires_at_ms,
  };
}

/** Replaces the workspace's token after a refresh. */
export async function storeConnectionTokens(
  db: Store,
  box: SecretBox,
  workspaceId: string,
  tokens: OAuthTokens,
): Promise<void> {
  const scope = workspaceScope(workspaceId);
  await db.run(
    "UPDATE tracker_connections SET token_sealed = ?, refresh_sealed = ?, expires_at_ms = ? WHERE workspace_id = ?",
    [
      box.seal(scope, tokens.accessToken),
      tokens.refreshToken ? box.seal(`${scope}/refresh`, tokens.refreshToken) : null,
      tokens.expiresAtMs,
      workspaceId,
    ],
  );
}

/**
 * Links the member's tracker identity in the workspace: `bound` when the identity belongs to the organisation the
 * workspace is connected to. Their token is kept (sealed) so the ticket search reads as them.
 */
export async function linkMemberIdentity(
  db: Store,
  box: SecretBox,
  input: {
    workspaceId: string;
    userId: string;
    email: string;
    identity: string;
    bound: boolean;
    tokens: OAuthTokens;
  },
): Promise<void> {
  await db.run(
    "UPDATE members SET tracker_identity = ?, tracker_identity_bound = ? WHERE workspace_id = ? AND email = ?",
    [input.identity, input.bound ? 1 : 0, input.workspaceId, input.email],
  );
  await storeMemberTokens(db, box, input.workspaceId, input.userId, input.tokens);
}

export async function storeMemberTokens(
  db: Store,
  box: SecretBox,
  workspaceId: string,
  userId: string,
  tokens: OAuthTokens,
): Promise<void> {
  const scope = memberScope(workspaceId, userId);
  await db.run(
    `INSERT INTO tracker_member_tokens (workspace_id, user_id, token_sealed, refresh_sealed, expires_at_ms)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT (workspace_id, user_id) DO UPDATE SET token_sealed = excluded.token_sealed,
       refresh_sealed = excluded.refresh_sealed, expires_at_ms = excluded.expires_at_ms`,
    [
      workspaceId,
      userId,
      box.seal(scope, tokens.accessToken),
      tokens.refreshToken ? box.seal(`${scope}/refresh`, tokens.refreshToken) : null,
      tokens.expiresAtMs,
    ],
  );
}

/** The member's own token (opened), found by their linked identity; null when they never linked one here. */
export async function openMemberTokensByIdentity(
  db: Store,
  box: SecretBox,
  workspaceId: string,
  identity: string,
): Promise<{ userId: string; tokens: OAuthTokens } | null> {
  const row = (await db.get(
    `SELECT t.user_id, t.token_sealed, t.refresh_sealed, t.expires_at_ms FROM members m
     JOIN users u ON u.email = m.email
     JOIN tracker_member_tokens t ON t.workspace_id = m.workspace_id AND t.user_id = u.id
     WHERE m.workspace_id = ? AND m.tracker_identity = ?`,
    [workspaceId, identity],
  )) as
    | { user_id: string; token_sealed: string; refresh_sealed: string | null; expires_at_ms: number | null }
    | undefined;
  if (!row) return null;
  const scope = memberScope(workspaceId, row.user_id);
  return {
    userId: row.user_id,
    tokens: {
      accessToken: box.open(scope, row.token_sealed),
      refreshToken: row.refresh_sealed ? box.open(`${scope}/refresh`, row.refresh_sealed) : null,
      expiresAtMs: row.expires_at_ms,
    },
  };
}

/** The workspace's connection holds a token of its own (a seeded organisation alone does not connect it). */
export async function connectionHoldsToken(db: Store, workspaceId: string): Promise<boolean> {
  const row = (await db.get("SELECT token_sealed FROM tracker_connections WHERE workspace_id = ?", [
    workspaceId,
  ])) as { token_sealed: string | null } | undefined;
  return Boolean(row?.token_sealed);
}
