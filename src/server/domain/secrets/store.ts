// Writes a repository secret with its value sealed; a secret keeps its id (and so its placeholder) across
// rotations. Writing the value it already holds leaves the row as it is, so re-seeding changes nothing.

import { type SecretBox, secretScope } from "../../primitives/secret-box.js";
import { newId } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";

export interface SecretWrite {
  repositoryId: string;
  name: string;
  value: string;
  allowedHosts: readonly string[];
  at: string;
}

export async function writeSecret(
  db: Store,
  box: SecretBox,
  write: SecretWrite,
): Promise<{ secretId: string; created: boolean; changed: boolean }> {
  const existing = (await db.get(
    "SELECT id, value_sealed, allowed_hosts_json FROM secrets WHERE repository_id = ? AND name = ?",
    [write.repositoryId, write.name],
  )) as { id: string; value_sealed: string; allowed_hosts_json: string } | undefined;
  const hosts = JSON.stringify(write.allowedHosts);
  const scope = secretScope(write.repositoryId, write.name);
  if (existing) {
    if (sameValue(box, scope, existing.value_sealed, write.value) && existing.allowed_hosts_json === hosts) {
      return { secretId: existing.id, created: false, changed: false };
    }
    await db.run("UPDATE secrets SET value_sealed = ?, allowed_hosts_json = ?, updated_at = ? WHERE id = ?", [
      box.seal(scope, write.value),
      hosts,
      write.at,
      existing.id,
    ]);
    return { secretId: existing.id, created: false, changed: true };
  }
  const secretId = newId("sec");
  await db.run(
    "INSERT INTO secrets (id, repository_id, name, value_sealed, allowed_hosts_json, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
    [secretId, write.repositoryId, write.name, box.seal(scope, write.value), hosts, write.at],
  );
  return { secretId, created: true, changed: true };
}

function sameValue(box: SecretBox, scope: string, sealed: string, value: string): boolean {
  try {
    return box.open(scope, sealed) === value;
  } catch {
    return false;
  }
}
