// The seed document's task-engine parts: each workspace's plan, billing and code-host / tracker connections with
// their issues, members' names and identities, and the scripted agent's rules. Applying a seed again updates
// what the seed names and never deletes what the service created (tasks, pull requests, revocations, an issue's
// task).
import { z } from "zod";
import { ScriptedRuleSchema } from "../../adapters/agents/scripted-rules.js";
import { recordInstallation } from "../../adapters/codehost/installations.js";
import { newId } from "../../primitives/tokens.js";
import type { SqlValue, Store } from "../../store/store.js";
import { upsertUser } from "../auth/users.js";
import type { Fields, FieldValue } from "./plan.js";

const Login = z
  .string()
  .regex(/^[A-Za-z0-9_.@-]{1,100}$/, "must be 1 to 100 letters, digits, '_', '.', '@' or '-'");

export const SeedMemberIdentitySchema = z.object({
  name: z.string().min(1).max(200).optional(),
  /** The member's code-host account; without one no code-host issues are listed for them. */
  codehostLogin: Login.optional(),
  /** The member's linked tracker identity; `trackerIdentityBound: false` for one linked to another tracker. */
  trackerIdentity: Login.optional(),
  trackerIdentityBound: z.boolean().default(true),
});

export const SeedPlanSchema = z.object({
  name: z.string().min(1).max(100).default("standard"),
  concurrency: z.number().int().min(1).max(1000),
  queueSize: z.number().int().min(0).max(100_000),
});

const SeedTrackerIssueSchema = z.object({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,128}$/)
    .optional(),
  identifier: z.string().min(1).max(100),
  title: z.string().max(500).nullable(),
  context: z.string().max(100_000).default(""),
  state: z.enum(["open", "closed"]).default("open"),
  /** A tracker identity, or null for the team's unassigned issues. */
  assignee: Login.nullable().default(null),
  url: z.url().optional(),
});

const SeedCodehostIssueSchema = z.object({
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "must be owner/name"),
  number: z.number().int().positive(),
  title: z.string().max(500).nullable(),
  context: z.string().max(100_000).default(""),
  state: z.enum(["open", "closed"]).default("open"),
  assignee: Login.nullable().default(null),
  pullRequest: z.boolean().default(false),
  url: z.url().optional(),
});

export const SeedWorkspaceTasksSchema = z.object({
  plan: SeedPlanSchema.optional(),
  billing: z.enum(["active", "inactive"]).optional(),
  codehost: z
    .object({
      connected: z.boolean().default(true),
      issues: z.array(SeedCodehostIssueSchema).default([]),
      /** A code-host App installation already made for the workspace (its webhooks name it); never a secret. */
      installation: z
        .object({
          id: z.string().regex(/^\d{1,20}$/, "must be the installation's numeric id"),
          account: Login,
        })
        .optional(),
    })
    .optional(),
  tracker: z
    .object({
      connected: z.boolean().default(true),
      issues: z.array(SeedTrackerIssueSchema).default([]),
      /** The tracker organisation the workspace is connected to (its webhooks name it); its token comes from the
       * install flow, never the seed. */
      organization: z
        .object({ id: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/), name: z.string().min(1).max(200) })
        .optional(),
    })
    .optional(),
});

export const SeedAgentSchema = z.object({ rules: z.array(ScriptedRuleSchema).max(1000).default([]) });

type Workspace = z.infer<typeof SeedWorkspaceTasksSchema> & { id: string };
type Member = z.infer<typeof SeedMemberIdentitySchema> & { email: string };

/**
 * The task engine's workspace fields the seed names, as seed fields and their columns, for the workspace's seed
 * item (apply-seed.ts): a field is written when its seed value changed since the seed last set it, so a plan or
 * billing state changed through the admin API survives re-seeding the same file.
 */
export function workspaceTaskFields(workspace: Workspace): {
  columns: Record<string, string>;
  values: Fields;
} {
  const columns: Record<string, string> = {};
  const values: Record<string, FieldValue> = {};
  const set = (field: string, column: string, value: FieldValue) => {
    columns[field] = column;
    values[field] = value;
  };
  if (workspace.plan) {
    set("planName", "plan_name", workspace.plan.name);
    set("planConcurrency", "plan_concurrency", workspace.plan.concurrency);
    set("planQueueSize", "plan_queue_size", workspace.plan.queueSize);
  }
  if (workspace.billing) set("billing", "billing_state", workspace.billing);
  if (workspace.codehost)
    set("codehostConnected", "codehost_connected", workspace.codehost.connected ? 1 : 0);
  if (workspace.tracker) set("trackerConnected", "tracker_connected", workspace.tracker.connected ? 1 : 0);
  return { columns, values };
}

/** The member's tracker identity, when the seed names one, for the member's seed item. */
export function memberTaskFields(member: Member): { columns: Record<string, string>; values: Fields } {
  if (member.trackerIdentity === undefined) return { columns: {}, values: {} };
  return {
    columns: { trackerIdentity: "tracker_identity", trackerIdentityBound: "tracker_identity_bound" },
    values: {
      trackerIdentity: member.trackerIdentity,
      trackerIdentityBound: member.trackerIdentityBound ? 1 : 0,
    },
  };
}

/** The columns of the fields a member's seed item recorded (to read the row back when it leaves the seed). */
export function memberTaskColumnsOf(applied: Fields): Record<string, string> {
  return "trackerIdentity" in applied
    ? { trackerIdentity: "tracker_identity", trackerIdentityBound: "tracker_identity_bound" }
    : {};
}

/** The member's user (one per e-mail, across workspaces): its name and code-host login when the seed names them. */
export async function applyMemberUser(db: Store, member: Member, now: Date): Promise<void> {
  await upsertUser(db, { email: member.email, name: member.name, codehostLogin: member.codehostLogin }, now);
}

/** Columns a seeded token gets when it is first inserted: an id to revoke it by and its last four characters. */
export const seededTokenColumns = (token: string) => ({ id: newId("pat"), last_four: token.slice(-4) });

/**
 * The workspace's tracker and code-host issues: added or updated, never deleted; an issue's task and its assignee
 * once delegated are the service's and are kept.
 */
export async function applyWorkspaceIssues(db: Store, workspace: Workspace, now: Date): Promise<void> {
  const upsert = (...values: SqlValue[]) =>
    db.run(
      `INSERT INTO tickets (id, workspace_id, source, identifier, repo, number, title, context, state, assignee, is_pull_request,
       url, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (workspace_id, source, identifier) DO UPDATE SET title = excluded.title, context = excluded.context,
       state = excluded.state, assignee = coalesce(tickets.assignee, excluded.assignee),
       is_pull_request = excluded.is_pull_request, url = excluded.url`,
      values,
    );
  for (const issue of workspace.tracker?.issues ?? []) {
    await upsert(
      issue.id ?? `trk_${workspace.id}_${issue.identifier}`,
      workspace.id,
      "tracker",
      issue.identifier,
      null,
      null,
      issue.title,
      issue.context,
      issue.state,
      issue.assignee,
      0,
      issue.url ?? `https://tracker.invalid/issue/${encodeURIComponent(issue.identifier)}`,
      now.toISOString(),
    );
  }
  for (const issue of workspace.codehost?.issues ?? []) {
    const identifier = `${issue.repo}#${issue.number}`;
    await upsert(
      `ch_${workspace.id}_${issue.repo.replace("/", "_")}_${issue.number}`,
      workspace.id,
      "codehost",
      identifier,
      issue.repo,
      issue.number,
      issue.title,
      issue.context,
      issue.state,
      issue.assignee,
      issue.pullRequest ? 1 : 0,
      issue.url ??
        `https://codehost.invalid/${issue.repo}/${issue.pullRequest ? "pull" : "issues"}/${issue.number}`,
      now.toISOString(),
    );
  }
}

/**
 * The code-host installation and tracker organisation the seed names: recorded (an installation already recorded
 * for another workspace is the seed's mistake and stops it). The installation gives the seed's connected
 * repositories of the workspace.
 */
export async function applyWorkspaceConnections(db: Store, workspace: Workspace, now: Date): Promise<void> {
  const installation = workspace.codehost?.installation;
  if (installation) {
    const recorded = await recordInstallation(
      db,
      { installationId: installation.id, workspaceId: workspace.id, accountLogin: installation.account },
      now,
    );
    await db.run(
      "UPDATE repositories SET codehost_installation_id = ? WHERE workspace_id = ? AND codehost_installation_id IS NULL",
      [recorded.installationId, workspace.id],
    );
  }
  const organization = workspace.tracker?.organization;
  if (organization)
    await db.run(
      `INSERT INTO tracker_connections (workspace_id, organization_id, organization_name, created_at)
       VALUES (?, ?, ?, ?) ON CONFLICT (workspace_id) DO UPDATE SET organization_id = excluded.organization_id,
       organization_name = excluded.organization_name`,
      [workspace.id, organization.id, organization.name, now.toISOString()],
    );
}

/** The scripted agent's rules are the seed's alone: a seed with `agent` replaces them. */
export async function applyAgentRules(db: Store, agent: z.infer<typeof SeedAgentSchema>): Promise<void> {
  await db.run("DELETE FROM agent_rules");
  for (const [position, rule] of agent.rules.entries())
    await db.run("INSERT INTO agent_rules (position, rule_json) VALUES (?, ?)", [
      position,
      JSON.stringify(rule),
    ]);
}

export async function loadAgentRules(db: Store): Promise<z.infer<typeof ScriptedRuleSchema>[]> {
  return (
    (await db.all("SELECT rule_json FROM agent_rules ORDER BY position")) as { rule_json: string }[]
  ).map((r) => ScriptedRuleSchema.parse(JSON.parse(r.rule_json)));
}
