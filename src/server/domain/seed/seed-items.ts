// The seed ledger (table seed_items): per item the seed set, the field values it set last time.
import type { Store } from "../../store/store.js";
import type { Fields } from "./plan.js";

export type SeedItemKind =
  | "workspace"
  | "member"
  | "member_token"
  | "engagement"
  | "repository"
  | "environment_version"
  | "sandbox_env"
  | "secret";

export async function loadSeedItems(
  db: Store,
  kind: SeedItemKind,
  scope: string,
): Promise<Map<string, Fields>> {
  const rows = (await db.all("SELECT key, applied_json FROM seed_items WHERE kind = ? AND scope = ?", [
    kind,
    scope,
  ])) as { key: string; applied_json: string }[];
  return new Map(rows.map((r) => [r.key, JSON.parse(r.applied_json) as Fields]));
}

export async function saveSeedItem(
  db: Store,
  item: { kind: SeedItemKind; scope: string; key: string },
  applied: Fields,
  at: string,
): Promise<void> {
  await db.run(
    `INSERT INTO seed_items (kind, scope, key, applied_json, applied_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (kind, scope, key) DO UPDATE SET applied_json = excluded.applied_json, applied_at = excluded.applied_at`,
    [item.kind, item.scope, item.key, JSON.stringify(applied), at],
  );
}

export async function dropSeedItem(
  db: Store,
  item: { kind: SeedItemKind; scope: string; key: string },
): Promise<void> {
  await db.run("DELETE FROM seed_items WHERE kind = ? AND scope = ? AND key = ?", [
    item.kind,
    item.scope,
    item.key,
  ]);
}
