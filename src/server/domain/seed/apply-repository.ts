// A seeded repository: its row, its environment version, its sandboxEnv entries and its secrets, applied with
// the seed ledger's rules (apply-seed.ts). Secret values are compared through fingerprints, never stored twice.
import { createHash } from "node:crypto";
import { InputError } from "../../../errors.js";
import { secretScope } from "../../primitives/secret-box.js";
import { newId } from "../../primitives/tokens.js";
import { fingerprintSecret, matchesFingerprint } from "./fingerprint.js";
import { type Fields, itemsGone } from "./plan.js";
import type { SeedRepository, SeedWorkspace } from "./schema.js";
import { loadSeedItems } from "./seed-items.js";
import { applyTableItem, pruneTableItem, type SeedContext, type TableItem } from "./table-item.js";

/** Applies the repository and what it holds; returns its id. */
export async function applyRepository(
  ctx: SeedContext,
  workspaceId: string,
  repo: SeedRepository,
): Promise<string> {
  const id = await repositoryIdFor(ctx, workspaceId, repo);
  const env = repo.environment;
  await applyTableItem(
    ctx,
    {
      kind: "repository",
      scope: workspaceId,
      key: id,
      table: "repositories",
      where: { id },
      columns: { slug: "slug", connected: "connected", currentVersionId: "current_version_id" },
      insertExtra: { workspace_id: workspaceId },
    },
    {
      slug: repo.repository,
      connected: repo.connected ? 1 : 0,
      ...(env ? { currentVersionId: env.versionId } : {}),
    },
    (await loadSeedItems(ctx.db, "repository", workspaceId)).get(id),
  );
  if (env) {
    await applyTableItem(
      ctx,
      {
        kind: "environment_version",
        scope: id,
        key: env.versionId,
        table: "environment_versions",
        where: { repository_id: id, version_id: env.versionId },
        columns: {
          dockerfilePath: "dockerfile_path",
          agentInstructionsPath: "agent_instructions_path",
          startupScriptPath: "startup_script_path",
          runPath: "run_path",
          evidencePath: "evidence_path",
          readiness: "readiness_json",
          startupTimeoutSeconds: "startup_timeout_seconds",
        },
        insertExtra: { created_at: ctx.at },
      },
      {
        dockerfilePath: env.dockerfilePath,
        agentInstructionsPath: env.agentInstructionsPath,
        startupScriptPath: env.startupScriptPath,
        runPath: env.runPath ?? null,
        evidencePath: env.evidencePath ?? null,
        readiness: JSON.stringify(env.readiness),
        startupTimeoutSeconds: env.startupTimeoutSeconds ?? null,
      },
      (await loadSeedItems(ctx.db, "environment_version", id)).get(env.versionId),
    );
  }
  const sandboxEnv = await loadSeedItems(ctx.db, "sandbox_env", id);
  for (const [name, value] of Object.entries(repo.sandboxEnv))
    await applyTableItem(ctx, sandboxEnvItem(id, name), { value }, sandboxEnv.get(name));
  const secrets = await loadSeedItems(ctx.db, "secret", id);
  for (const secret of repo.secrets) {
    const applied = secrets.get(secret.name);
    // The fingerprint the seed last recorded, while the value is unchanged; a new one when it changed.
    const value = matchesFingerprint(secret.value, applied?.value)
      ? (applied!.value as string)
      : fingerprintSecret(secret.value);
    await applyTableItem(
      ctx,
      secretItem(ctx, id, secret.name, { value, plain: secret.value }),
      { value, allowedHosts: JSON.stringify(secret.allowedHosts) },
      applied,
    );
  }
  return id;
}

/** Removes the sandboxEnv entries and secrets the seed set before and no longer has (unless changed since). */
export async function pruneRepository(ctx: SeedContext, id: string, repo: SeedRepository): Promise<void> {
  const sandboxEnv = await loadSeedItems(ctx.db, "sandbox_env", id);
  for (const [name, applied] of itemsGone(sandboxEnv, new Set(Object.keys(repo.sandboxEnv))))
    await pruneTableItem(ctx, sandboxEnvItem(id, name), applied, `sandboxEnv ${name} of ${repo.repository}`);
  const secrets = await loadSeedItems(ctx.db, "secret", id);
  for (const [name, applied] of itemsGone(secrets, new Set(repo.secrets.map((s) => s.name)))) {
    const item = secretItem(ctx, id, name, { value: applied.value as string });
    await pruneTableItem(ctx, item, applied, `secret ${name} of ${repo.repository}`);
  }
}

/** A seed sandboxEnv name that is also a secret of the repository (one owners added, or one kept) is refused. */
export async function checkNameClashes(ctx: SeedContext, workspace: SeedWorkspace): Promise<void> {
  for (const repo of workspace.repositories) {
    const clash = (await ctx.db.get(
      `SELECT e.name FROM sandbox_env e JOIN secrets s ON s.repository_id = e.repository_id AND s.name = e.name
         JOIN repositories r ON r.id = e.repository_id WHERE r.workspace_id = ? AND r.slug = ? ORDER BY e.name`,
      [workspace.id, repo.repository],
    )) as { name: string } | undefined;
    if (clash) {
      throw new InputError(
        `${repo.repository}: ${clash.name} is a sandboxEnv entry of the seed and also a secret of the repository (set through the API); rename the sandboxEnv entry`,
      );
    }
  }
}

export function defaultRepositoryId(workspaceId: string, slug: string): string {
  return `repo_${createHash("sha256").update(`${workspaceId}/${slug}`).digest("hex").slice(0, 16)}`;
}

async function repositoryIdFor(ctx: SeedContext, workspaceId: string, repo: SeedRepository): Promise<string> {
  const bySlug = (await ctx.db.get("SELECT id FROM repositories WHERE workspace_id = ? AND slug = ?", [
    workspaceId,
    repo.repository,
  ])) as { id: string } | undefined;
  const id = repo.id ?? bySlug?.id ?? defaultRepositoryId(workspaceId, repo.repository);
  if (bySlug && bySlug.id !== id) {
    throw new InputError(
      `repository ${repo.repository} already has id ${bySlug.id}; drop "id" or use that one`,
    );
  }
  const existing = (await ctx.db.get("SELECT workspace_id FROM repositories WHERE id = ?", [id])) as
    | { workspace_id: string }
    | undefined;
  if (existing && existing.workspace_id !== workspaceId) {
    throw new InputError(`repository id ${id} already belongs to another workspace; pick another id`);
  }
  return id;
}

const sandboxEnvItem = (repositoryId: string, name: string): TableItem => ({
  kind: "sandbox_env",
  scope: repositoryId,
  key: name,
  table: "sandbox_env",
  where: { repository_id: repositoryId, name },
  columns: { value: "value" },
});

/**
 * A secret row. Its `value` field is the fingerprint the seed recorded (`value`): a stored value that still
 * matches it reads as that fingerprint, any other as changed; writing stores the plain value sealed with the
 * operator's key (secrets at rest), when known.
 */
function secretItem(
  ctx: SeedContext,
  repositoryId: string,
  name: string,
  value: { value: string; plain?: string },
): TableItem {
  const scope = secretScope(repositoryId, name);
  return {
    kind: "secret",
    scope: repositoryId,
    key: name,
    table: "secrets",
    where: { repository_id: repositoryId, name },
    columns: { value: "value_sealed", allowedHosts: "allowed_hosts_json" },
    insertExtra: { id: newId("sec") },
    writeExtra: { updated_at: ctx.at },
    toColumn: (field, v) =>
      field === "value" ? (value.plain === undefined ? null : ctx.box.seal(scope, value.plain)) : v,
    fromColumn: (field, stored): Fields[string] =>
      field === "value"
        ? matchesFingerprint(openOrNull(ctx, scope, stored), value.value)
          ? value.value
          : "changed since the seed set it"
        : (stored as Fields[string]),
  };
}

function openOrNull(ctx: SeedContext, scope: string, stored: unknown): string {
  try {
    return typeof stored === "string" ? ctx.box.open(scope, stored) : "";
  } catch {
    return "";
  }
}
