// Applies a seed document in one transaction, as a three-way merge of what the seed says now, what it set last
// time (the seed_items ledger) and what the store holds (rules in plan.ts, README "Seed document"):
//   - adds what the seed has and the store lacks;
//   - writes a field only when its seed value changed since the seed last set it, so re-applying an unchanged
//     seed (every `baton serve --seed` start) changes nothing, whatever owners changed through the API since;
//   - never deletes a row the seed did not set (a secret added with PUT .../secrets/:name, engagements, ...);
//   - of the workspaces and repositories it lists, removes a member, member token, sandboxEnv entry or secret it
//     set before and no longer has, unless the service changed that row since (then keeps it and says so);
//     workspaces, repositories, environment versions and engagements are never removed.
// A secret keeps its id (so its placeholder) when its value or hosts change.
import type { Logger } from "pino";
import { InputError } from "../../../errors.js";
import { hashCredential } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";
import { DEFAULT_TOKEN_TTL_DAYS } from "../capability/member-auth.js";
import { applyRepository, checkNameClashes, pruneRepository } from "./apply-repository.js";

export { defaultRepositoryId } from "./apply-repository.js";

import type { SecretBox } from "../../primitives/secret-box.js";
import { itemsGone } from "./plan.js";
import type { SeedDocument, SeedWorkspace } from "./schema.js";
import { dropSeedItem, loadSeedItems } from "./seed-items.js";
import { applyTableItem, pruneTableItem, type SeedContext, type TableItem } from "./table-item.js";
import {
  applyAgentRules,
  applyMemberUser,
  applyWorkspaceConnections,
  applyWorkspaceIssues,
  memberTaskColumnsOf,
  memberTaskFields,
  seededTokenColumns,
  workspaceTaskFields,
} from "./tasks-seed.js";

export interface SeedOutcome {
  /** Items that left the seed but stay because the service changed them since the seed set them. */
  kept: string[];
}

/**
 * Applies `seed`; secret values are written sealed with `box` (the operator's key), never in plaintext. Logs (on
 * `logger`) each item that left the seed but stays, naming it, never a value.
 */
export async function applySeed(
  db: Store,
  seed: SeedDocument,
  now: Date,
  box: SecretBox,
  logger?: Logger,
): Promise<SeedOutcome> {
  const ctx: SeedContext = { db, at: now.toISOString(), kept: [], box };
  await db.transaction(async () => {
    const workspaces = await loadSeedItems(db, "workspace", "");
    const prunes: (() => Promise<void>)[] = [];
    for (const workspace of seed.workspaces) {
      const tasks = workspaceTaskFields(workspace);
      await applyTableItem(
        ctx,
        {
          kind: "workspace",
          scope: "",
          key: workspace.id,
          table: "workspaces",
          where: { id: workspace.id },
          columns: { name: "name", rollout: "rollout_repository_environments", ...tasks.columns },
          insertExtra: { created_at: ctx.at },
        },
        { name: workspace.name, rollout: workspace.rollout.repositoryEnvironments ? 1 : 0, ...tasks.values },
        workspaces.get(workspace.id),
      );
      prunes.push(await applyMembers(ctx, workspace, now));
      for (const repository of workspace.repositories) {
        const id = await applyRepository(ctx, workspace.id, repository);
        prunes.push(() => pruneRepository(ctx, id, repository));
      }
      await applyEngagements(db, workspace, ctx.at);
      await applyWorkspaceIssues(db, workspace, now);
      await applyWorkspaceConnections(db, workspace, now);
    }
    // Removals come after every addition, so an item that moved (a token to another member, a secret name to
    // sandboxEnv) is judged against the whole new seed.
    for (const prune of prunes) await prune();
    for (const workspace of seed.workspaces) await checkNameClashes(ctx, workspace);
    if (seed.agent) await applyAgentRules(db, seed.agent);
  });
  for (const item of ctx.kept)
    logger?.warn({ item }, "left the seed but kept: changed through the API since the seed set it");
  return { kept: ctx.kept };
}

const memberItem = (workspaceId: string, email: string, extra: Record<string, string> = {}): TableItem => ({
  kind: "member",
  scope: workspaceId,
  key: email,
  table: "members",
  where: { workspace_id: workspaceId, email },
  columns: { role: "role", ...extra },
});

const tokenItem = (workspaceId: string, tokenHash: string, now: Date, token?: string): TableItem => ({
  kind: "member_token",
  scope: workspaceId,
  key: tokenHash,
  table: "personal_access_tokens",
  where: { token_hash: tokenHash },
  columns: { email: "email" },
  insertExtra: {
    name: "seed",
    expires_at_ms: now.getTime() + DEFAULT_TOKEN_TTL_DAYS * 86_400_000,
    created_at: now.toISOString(),
    ...(token ? seededTokenColumns(token) : {}),
  },
});

/** Applies the workspace's members and their tokens; returns the removal step for those that left the seed. */
async function applyMembers(
  ctx: SeedContext,
  workspace: SeedWorkspace,
  now: Date,
): Promise<() => Promise<void>> {
  const members = await loadSeedItems(ctx.db, "member", workspace.id);
  const tokens = await loadSeedItems(ctx.db, "member_token", workspace.id);
  const seenMembers = new Set<string>();
  const seenTokens = new Set<string>();
  for (const member of workspace.members) {
    const email = member.email.toLowerCase();
    seenMembers.add(email);
    const identity = memberTaskFields(member);
    await applyTableItem(
      ctx,
      memberItem(workspace.id, email, identity.columns),
      { role: member.role, ...identity.values },
      members.get(email),
    );
    await applyMemberUser(ctx.db, member, now);
    if (member.token) {
      const hash = hashCredential(member.token);
      seenTokens.add(hash);
      await applyTableItem(
        ctx,
        tokenItem(workspace.id, hash, now, member.token),
        { email },
        tokens.get(hash),
      );
    }
  }
  return async () => {
    for (const [email, applied] of itemsGone(members, seenMembers))
      await pruneTableItem(
        ctx,
        memberItem(workspace.id, email, memberTaskColumnsOf(applied)),
        applied,
        `member ${email} of ${workspace.id}`,
      );
    for (const [hash, applied] of itemsGone(tokens, seenTokens)) {
      const item = tokenItem(workspace.id, hash, now);
      // A member of another workspace in the seed may still hand out the same token: then it stays.
      if (await seededElsewhere(ctx.db, hash, workspace.id)) {
        await dropSeedItem(ctx.db, item);
        continue;
      }
      await pruneTableItem(
        ctx,
        item,
        applied,
        `the seed token of ${String(applied.email)} in ${workspace.id}`,
      );
    }
  };
}

async function seededElsewhere(db: Store, tokenHash: string, workspaceId: string): Promise<boolean> {
  return (
    (await db.get("SELECT 1 FROM seed_items WHERE kind = 'member_token' AND key = ? AND scope <> ?", [
      tokenHash,
      workspaceId,
    ])) !== undefined
  );
}

/** Engagements are only ever added; one id belongs to one workspace. */
async function applyEngagements(db: Store, workspace: SeedWorkspace, at: string): Promise<void> {
  for (const engagement of workspace.engagements) {
    const owner = (await db.get("SELECT workspace_id FROM engagements WHERE id = ?", [engagement.id])) as
      | { workspace_id: string }
      | undefined;
    if (owner && owner.workspace_id !== workspace.id) {
      throw new InputError(
        `engagement ${engagement.id} already belongs to another workspace; pick another id`,
      );
    }
    if (!owner) {
      await db.run("INSERT INTO engagements (id, workspace_id, created_at) VALUES (?, ?, ?)", [
        engagement.id,
        workspace.id,
        at,
      ]);
    }
  }
}
