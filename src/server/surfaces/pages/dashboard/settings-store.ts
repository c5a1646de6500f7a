// What the settings and billing pages read about a workspace (read-only): its code-host installations and
// repositories, its tracker connection, the signed-in member's own linked accounts, its plan and slot counts.
import type { User } from "../../../domain/auth/users.js";
import { slotCounts, workspaceFacts } from "../../../domain/tasks/task-store.js";
import { trackerLinkOf } from "../../../domain/tickets/ticket-store.js";
import type { Store } from "../../../store/store.js";

export interface Installation {
  accountLogin: string;
  suspended: boolean;
  createdAt: string;
}

export interface RepositoryRow {
  id: string;
  slug: string;
  enabled: boolean;
}

export interface WorkspaceConnections {
  codehostConnected: boolean;
  installations: Installation[];
  repositories: RepositoryRow[];
  trackerConnected: boolean;
  /** The tracker organization, when connected through the install flow. */
  trackerOrganization: string | null;
  mine: { codehostLogin: string | null; trackerIdentity: string | null; trackerBound: boolean };
}

export async function readConnections(
  db: Store,
  workspaceId: string,
  user: User,
): Promise<WorkspaceConnections> {
  const facts = (await workspaceFacts(db, workspaceId))!;
  const installations = (
    (await db.all(
      "SELECT account_login, suspended, created_at FROM codehost_installations WHERE workspace_id = ? ORDER BY account_login",
      [workspaceId],
    )) as { account_login: string; suspended: number; created_at: string }[]
  ).map((r) => ({ accountLogin: r.account_login, suspended: r.suspended === 1, createdAt: r.created_at }));
  const repositories = (
    (await db.all("SELECT id, slug, connected FROM repositories WHERE workspace_id = ? ORDER BY slug", [
      workspaceId,
    ])) as { id: string; slug: string; connected: number }[]
  ).map((r) => ({ id: r.id, slug: r.slug, enabled: r.connected === 1 }));
  const tracker = (await db.get("SELECT organization_name FROM tracker_connections WHERE workspace_id = ?", [
    workspaceId,
  ])) as { organization_name: string } | undefined;
  const link = await trackerLinkOf(db, workspaceId, user.email);
  return {
    codehostConnected: facts.codehostConnected,
    installations,
    repositories,
    trackerConnected: facts.trackerConnected,
    trackerOrganization: tracker?.organization_name ?? null,
    mine: { codehostLogin: user.codehostLogin, trackerIdentity: link.identity, trackerBound: link.bound },
  };
}

export interface BillingFacts {
  plan: { name: string; concurrency: number; queueSize: number };
  billingActive: boolean;
  running: number;
  queued: number;
}

export async function readBilling(db: Store, workspaceId: string): Promise<BillingFacts> {
  const facts = (await workspaceFacts(db, workspaceId))!;
  return { plan: facts.plan, billingActive: facts.billingActive, ...(await slotCounts(db, workspaceId)) };
}

/** Whether the workspace has the repository-environments rollout (capability requests and secrets need it). */
export async function rolloutEnabled(db: Store, workspaceId: string): Promise<boolean> {
  const row = (await db.get("SELECT rollout_repository_environments AS r FROM workspaces WHERE id = ?", [
    workspaceId,
  ])) as { r: number } | undefined;
  return row?.r === 1;
}

/** The slug of a repository of the workspace, or undefined when it is not one. */
export async function repositorySlugOf(
  db: Store,
  workspaceId: string,
  repoId: string,
): Promise<string | undefined> {
  const row = (await db.get("SELECT slug FROM repositories WHERE id = ? AND workspace_id = ?", [
    repoId,
    workspaceId,
  ])) as { slug: string } | undefined;
  return row?.slug;
}
