// The seed ledger (table seed_items): per item the seed set, the field values it set last time.
import type { Database } from "../store/sqlite.js";
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

export function loadSeedItems(db: Database, kind: SeedItemKind, scope: string): Map<string, Fields> {
  const rows = db
    .prepare("SELECT key, applied_json FROM seed_items WHERE kind = ? AND scope = ?")
    .all(kind, scope) as { key: string; applied_json: string }[];
  return new Map(rows.map((r) => [r.key, JSON.parse(r.applied_json) as Fields]));
}

export function saveSeedItem(
  db: Database,
  item: { kind: SeedItemKind; scope: string; key: string },
  applied: Fields,
  at: string,
): void {
  db.prepare(
    `INSERT INTO seed_items (kind, scope, key, applied_json, applied_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (kind, scope, key) DO UPDATE SET applied_json = excluded.applied_json, applied_at = excluded.applied_at`,
  ).run(item.kind, item.scope, item.key, JSON.stringify(applied), at);
}

export function dropSeedItem(db: Database, item: { kind: SeedItemKind; scope: string; key: string }): void {
  db.prepare("DELETE FROM seed_items WHERE kind = ? AND scope = ? AND key = ?").run(
    item.kind,
    item.scope,
    item.key,
  );
}
