// The service's records of code-host App installations: which workspace each installation belongs to, the
// repositories it gives that workspace (enabled, `connected = 1`), and the credential id whose placeholder stands
// for the installation's token inside a box (the proxy swaps in the token; the box never holds it). The install
// callback and the installation webhooks write these; the adapter and the webhook worker read them. Plain
// functions over the store, run inside the caller's transaction.
import { randomBytes } from "node:crypto";
import { newId } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";

export interface Installation {
  installationId: string;
  workspaceId: string;
  accountLogin: string;
  /** `sec_<32 hex>`: the placeholder `baton-secret-<credentialId>` stands for the installation token. */
  credentialId: string;
  suspended: boolean;
}

interface Row {
  installation_id: string;
  workspace_id: string;
  account_login: string;
  credential_id: string;
  suspended: number;
}

const toInstallation = (row: Row): Installation => ({
  installationId: row.installation_id,
  workspaceId: row.workspace_id,
  accountLogin: row.account_login,
  credentialId: row.credential_id,
  suspended: row.suspended === 1,
});

const COLUMNS = "installation_id, workspace_id, account_login, credential_id, suspended";

export async function installationById(db: Store, installationId: string): Promise<Installation | undefined> {
  const row = (await db.get(`SELECT ${COLUMNS} FROM codehost_installations WHERE installation_id = ?`, [
    installationId,
  ])) as Row | undefined;
  return row && toInstallation(row);
}

export async function installationsOf(db: Store, workspaceId: string): Promise<Installation[]> {
  return (
    (await db.all(
      `SELECT ${COLUMNS} FROM codehost_installations WHERE workspace_id = ? ORDER BY created_at`,
      [workspaceId],
    )) as unknown as Row[]
  ).map(toInstallation);
}

/** The installation that gives `repo` to the workspace, if any. */
export async function installationOfRepo(
  db: Store,
  workspaceId: string,
  repo: string,
): Promise<Installation | undefined> {
  const row = (await db.get(
    `SELECT ${COLUMNS.split(", ")
      .map((c) => `i.${c}`)
      .join(", ")} FROM repositories r JOIN codehost_installations i
     ON i.installation_id = r.codehost_installation_id
     WHERE r.workspace_id = ? AND r.slug = ? AND r.connected = 1`,
    [workspaceId, repo],
  )) as Row | undefined;
  return row && toInstallation(row);
}

export class InstallationElsewhereError extends Error {
  override readonly name = "InstallationElsewhereError";
}

/**
 * Records an installation for the workspace (or refreshes its account name) and marks the workspace's code host
 * connected. An installation already recorded for another workspace is refused: one installation, one workspace.
 */
export async function recordInstallation(
  db: Store,
  input: { installationId: string; workspaceId: string; accountLogin: string },
  now: Date,
): Promise<Installation> {
  const existing = await installationById(db, input.installationId);
  if (existing && existing.workspaceId !== input.workspaceId)
    throw new InstallationElsewhereError(
      `installation ${input.installationId} is connected to another workspace`,
    );
  await db.run(
    `INSERT INTO codehost_installations (installation_id, workspace_id, account_login, credential_id, created_at)
     VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (installation_id) DO UPDATE SET account_login = excluded.account_login, suspended = 0`,
    [
      input.installationId,
      input.workspaceId,
      input.accountLogin,
      `sec_${randomBytes(16).toString("hex")}`,
      now.toISOString(),
    ],
  );
  await db.run("UPDATE workspaces SET codehost_connected = 1 WHERE id = ?", [input.workspaceId]);
  return (await installationById(db, input.installationId))!;
}

/** Repositories the installation now gives the workspace: enabled, and linked to the installation. */
export async function addInstallationRepos(
  db: Store,
  installation: Installation,
  repos: readonly string[],
): Promise<void> {
  for (const repo of repos) {
    await db.run(
      `INSERT INTO repositories (id, workspace_id, slug, connected, codehost_installation_id) VALUES (?, ?, ?, 1, ?)
       ON CONFLICT (workspace_id, slug) DO UPDATE SET connected = 1,
         codehost_installation_id = excluded.codehost_installation_id`,
      [newId("repo"), installation.workspaceId, repo, installation.installationId],
    );
  }
}

/** Repositories the installation no longer gives: disabled (their secrets and history stay). */
export async function removeInstallationRepos(
  db: Store,
  installation: Installation,
  repos: readonly string[],
): Promise<void> {
  for (const repo of repos) {
    await db.run(
      "UPDATE repositories SET connected = 0 WHERE workspace_id = ? AND slug = ? AND codehost_installation_id = ?",
      [installation.workspaceId, repo, installation.installationId],
    );
  }
}

/** The installation's repositories are exactly `repos` (the install callback's full listing). */
export async function setInstallationRepos(
  db: Store,
  installation: Installation,
  repos: readonly string[],
): Promise<void> {
  const current = (
    (await db.all(
      "SELECT slug FROM repositories WHERE workspace_id = ? AND codehost_installation_id = ? AND connected = 1",
      [installation.workspaceId, installation.installationId],
    )) as { slug: string }[]
  ).map((r) => r.slug);
  const wanted = new Set(repos);
  await removeInstallationRepos(
    db,
    installation,
    current.filter((slug) => !wanted.has(slug)),
  );
  await addInstallationRepos(db, installation, repos);
}

export async function setInstallationSuspended(
  db: Store,
  installationId: string,
  suspended: boolean,
): Promise<void> {
  await db.run("UPDATE codehost_installations SET suspended = ? WHERE installation_id = ?", [
    suspended ? 1 : 0,
    installationId,
  ]);
}

/**
 * The App was uninstalled: its repositories are disabled, the record goes, and the workspace's code host is
 * disconnected when no installation is left.
 */
export async function removeInstallation(
  db: Store,
  installationId: string,
): Promise<Installation | undefined> {
  const installation = await installationById(db, installationId);
  if (!installation) return undefined;
  await db.run(
    "UPDATE repositories SET connected = 0 WHERE workspace_id = ? AND codehost_installation_id = ?",
    [installation.workspaceId, installationId],
  );
  await db.run("DELETE FROM codehost_installations WHERE installation_id = ?", [installationId]);
  if ((await installationsOf(db, installation.workspaceId)).length === 0)
    await db.run("UPDATE workspaces SET codehost_connected = 0 WHERE id = ?", [installation.workspaceId]);
  return installation;
}
