// Upserts a seed document in one transaction: re-seeding the same document changes nothing, a new environment
// versionId becomes the repository's current version, a secret keeps its id (and so its placeholder) when its
// value or hosts change, and sandboxEnv is replaced as a whole.
import { createHash } from "node:crypto";
import { InputError } from "../../errors.js";
import { newId } from "../auth/tokens.js";
import { saveMemberToken } from "../capability/member-auth.js";
import type { Database } from "../store/sqlite.js";
import { inTransaction } from "../store/transaction.js";
import type { SeedDocument, SeedRepository } from "./schema.js";

export function defaultRepositoryId(workspaceId: string, slug: string): string {
  return `repo_${createHash("sha256").update(`${workspaceId}/${slug}`).digest("hex").slice(0, 16)}`;
}

export function applySeed(db: Database, seed: SeedDocument, now: Date): void {
  const at = now.toISOString();
  inTransaction(db, () => {
    for (const workspace of seed.workspaces) {
      db.prepare(
        `INSERT INTO workspaces (id, name, rollout_repository_environments, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET name = excluded.name,
           rollout_repository_environments = excluded.rollout_repository_environments`,
      ).run(workspace.id, workspace.name, workspace.rollout.repositoryEnvironments ? 1 : 0, at);
      for (const member of workspace.members) {
        db.prepare(
          `INSERT INTO members (workspace_id, email, role) VALUES (?, ?, ?)
           ON CONFLICT (workspace_id, email) DO UPDATE SET role = excluded.role`,
        ).run(workspace.id, member.email.toLowerCase(), member.role);
        if (member.token) saveMemberToken(db, member.email, member.token, now);
      }
      for (const repository of workspace.repositories) upsertRepository(db, workspace.id, repository, at);
      for (const engagement of workspace.engagements) {
        const owner = db.prepare("SELECT workspace_id FROM engagements WHERE id = ?").get(engagement.id) as
          | { workspace_id: string }
          | undefined;
        if (owner && owner.workspace_id !== workspace.id) {
          throw new InputError(
            `engagement ${engagement.id} already belongs to another workspace; pick another id`,
          );
        }
        if (!owner) {
          db.prepare("INSERT INTO engagements (id, workspace_id, created_at) VALUES (?, ?, ?)").run(
            engagement.id,
            workspace.id,
            at,
          );
        }
      }
    }
  });
}

function upsertRepository(db: Database, workspaceId: string, repo: SeedRepository, at: string): void {
  const bySlug = db
    .prepare("SELECT id FROM repositories WHERE workspace_id = ? AND slug = ?")
    .get(workspaceId, repo.repository) as { id: string } | undefined;
  const id = repo.id ?? bySlug?.id ?? defaultRepositoryId(workspaceId, repo.repository);
  if (bySlug && bySlug.id !== id) {
    throw new InputError(
      `repository ${repo.repository} already has id ${bySlug.id}; drop "id" or use that one`,
    );
  }
  const existing = db.prepare("SELECT workspace_id FROM repositories WHERE id = ?").get(id) as
    | { workspace_id: string }
    | undefined;
  if (existing && existing.workspace_id !== workspaceId) {
    throw new InputError(`repository id ${id} already belongs to another workspace; pick another id`);
  }
  db.prepare(
    `INSERT INTO repositories (id, workspace_id, slug, connected) VALUES (?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET slug = excluded.slug, connected = excluded.connected`,
  ).run(id, workspaceId, repo.repository, repo.connected ? 1 : 0);

  db.prepare("DELETE FROM sandbox_env WHERE repository_id = ?").run(id);
  for (const [name, value] of Object.entries(repo.sandboxEnv)) {
    db.prepare("INSERT INTO sandbox_env (repository_id, name, value) VALUES (?, ?, ?)").run(id, name, value);
  }

  const keep = new Set(repo.secrets.map((s) => s.name));
  for (const row of db.prepare("SELECT name FROM secrets WHERE repository_id = ?").all(id) as {
    name: string;
  }[]) {
    if (!keep.has(row.name))
      db.prepare("DELETE FROM secrets WHERE repository_id = ? AND name = ?").run(id, row.name);
  }
  for (const secret of repo.secrets) {
    db.prepare(
      `INSERT INTO secrets (id, repository_id, name, value, allowed_hosts_json, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (repository_id, name) DO UPDATE SET value = excluded.value,
         allowed_hosts_json = excluded.allowed_hosts_json, updated_at = excluded.updated_at`,
    ).run(newId("sec"), id, secret.name, secret.value, JSON.stringify(secret.allowedHosts), at);
  }

  const env = repo.environment;
  if (env) {
    db.prepare(
      `INSERT INTO environment_versions (repository_id, version_id, dockerfile_path, agent_instructions_path,
         startup_script_path, run_path, evidence_path, readiness_json, startup_timeout_seconds, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (repository_id, version_id) DO UPDATE SET dockerfile_path = excluded.dockerfile_path,
         agent_instructions_path = excluded.agent_instructions_path,
         startup_script_path = excluded.startup_script_path, run_path = excluded.run_path,
         evidence_path = excluded.evidence_path, readiness_json = excluded.readiness_json,
         startup_timeout_seconds = excluded.startup_timeout_seconds`,
    ).run(
      id,
      env.versionId,
      env.dockerfilePath,
      env.agentInstructionsPath,
      env.startupScriptPath,
      env.runPath ?? null,
      env.evidencePath ?? null,
      JSON.stringify(env.readiness),
      env.startupTimeoutSeconds ?? null,
      at,
    );
    db.prepare("UPDATE repositories SET current_version_id = ? WHERE id = ?").run(env.versionId, id);
  }
}
