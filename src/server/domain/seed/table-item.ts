// One seeded row seen through the seed's field names: read it, insert it, update some fields, delete it. The
// table and column names are constants of apply-seed, never input.
import type { SecretBox } from "../../primitives/secret-box.js";
import type { SqlValue, Store } from "../../store/store.js";
import { type Fields, type FieldValue, fieldsToWrite, unchangedSinceSeeded } from "./plan.js";
import { dropSeedItem, type SeedItemKind, saveSeedItem } from "./seed-items.js";

export interface TableItem {
  kind: SeedItemKind;
  scope: string;
  key: string;
  table: string;
  /** Key columns and their values. */
  where: Readonly<Record<string, SqlValue>>;
  /** Seed field name -> column. */
  columns: Readonly<Record<string, string>>;
  /** More columns an INSERT sets (ids, timestamps). */
  insertExtra?: Readonly<Record<string, SqlValue>>;
  /** More columns every write sets (updated_at). */
  writeExtra?: Readonly<Record<string, SqlValue>>;
  /** The value to store for a field (a secret's value for its fingerprint); the field value by default. */
  toColumn?: (field: string, value: FieldValue) => SqlValue;
  /** The field value a stored column stands for (a stored secret as its fingerprint); the column by default. */
  fromColumn?: (field: string, value: unknown) => FieldValue;
}

export interface SeedContext {
  db: Store;
  at: string;
  /** Items that left the seed but stay, because the service changed them since the seed set them. */
  kept: string[];
  /** Seals and opens secret values (they are stored sealed). */
  box: SecretBox;
}

async function read(db: Store, item: TableItem): Promise<Fields | undefined> {
  const fields = Object.keys(item.columns);
  const where = Object.keys(item.where);
  const row = (await db.get(
    `SELECT ${fields.map((f) => item.columns[f]).join(", ")} FROM ${item.table} WHERE ${where.map((c) => `${c} = ?`).join(" AND ")}`,
    [...Object.values(item.where)],
  )) as Record<string, unknown> | undefined;
  if (!row) return undefined;
  return Object.fromEntries(
    fields.map((f) => {
      const stored = row[item.columns[f]!];
      return [f, item.fromColumn ? item.fromColumn(f, stored) : (stored as FieldValue)];
    }),
  );
}

function columnValues(item: TableItem, fields: Fields): Record<string, SqlValue> {
  return Object.fromEntries(
    Object.entries(fields).map(([f, v]) => [item.columns[f]!, item.toColumn ? item.toColumn(f, v) : v]),
  );
}

/** Writes what the seed changed (everything for a new item or a missing row) and records what it set. */
export async function applyTableItem(
  ctx: SeedContext,
  item: TableItem,
  desired: Fields,
  applied: Fields | undefined,
): Promise<void> {
  const where = Object.keys(item.where);
  const exists =
    (await ctx.db.get(`SELECT 1 FROM ${item.table} WHERE ${where.map((c) => `${c} = ?`).join(" AND ")}`, [
      ...Object.values(item.where),
    ])) !== undefined;
  const names = fieldsToWrite(desired, applied, exists);
  if (!exists) {
    const values = { ...item.where, ...item.insertExtra, ...item.writeExtra, ...columnValues(item, desired) };
    await ctx.db.run(
      `INSERT INTO ${item.table} (${Object.keys(values).join(", ")}) VALUES (${Object.keys(values)
        .map(() => "?")
        .join(", ")})`,
      [...Object.values(values)],
    );
  } else if (names.length > 0) {
    const values = {
      ...item.writeExtra,
      ...columnValues(item, Object.fromEntries(names.map((n) => [n, desired[n]!]))),
    };
    await ctx.db.run(
      `UPDATE ${item.table} SET ${Object.keys(values)
        .map((c) => `${c} = ?`)
        .join(", ")} WHERE ${Object.keys(item.where)
        .map((c) => `${c} = ?`)
        .join(" AND ")}`,
      [...Object.values(values), ...Object.values(item.where)],
    );
  }
  await saveSeedItem(ctx.db, item, desired, ctx.at);
}

/**
 * An item the seed set and no longer has: deleted when its row still holds what the seed set, kept (and named
 * in `ctx.kept`) when something else changed it since. Either way the seed forgets it.
 */
export async function pruneTableItem(
  ctx: SeedContext,
  item: TableItem,
  applied: Fields,
  describe: string,
): Promise<void> {
  const current = await read(ctx.db, item);
  if (current && unchangedSinceSeeded(applied, current)) {
    await ctx.db.run(
      `DELETE FROM ${item.table} WHERE ${Object.keys(item.where)
        .map((c) => `${c} = ?`)
        .join(" AND ")}`,
      [...Object.values(item.where)],
    );
  } else if (current) {
    ctx.kept.push(describe);
  }
  await dropSeedItem(ctx.db, item);
}
