// A digest of a table's rows that two engines agree on when they hold the same values: each value is written in
// one normal form (numbers, text, bytes, NULL), so an int8 read back as a number, a boolean as 0/1 and a bytea
// as bytes hash as SQLite's integer, integer and BLOB do. Values are only hashed, never kept or printed.
import { createHash, type Hash } from "node:crypto";

/** The normal form of one value: its kind and its text (bytes in hex). */
export function normaliseValue(value: unknown): string {
  if (value === null || value === undefined) return "N";
  if (typeof value === "boolean") return value ? "V1" : "V0";
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "string") return `V${value}`;
  if (value instanceof Uint8Array)
    return `B${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("hex")}`;
  if (value instanceof Date) return `V${value.toISOString()}`;
  return `V${JSON.stringify(value)}`;
}

/** Counts rows and hashes them in the order they are added. */
export class RowDigest {
  private readonly hash: Hash = createHash("sha256");
  private count = 0;

  add(values: readonly unknown[]): void {
    for (const value of values) {
      const text = normaliseValue(value);
      // Length-prefixed, so no two different rows can run together into the same bytes.
      this.hash.update(`${text.length}:${text};`);
    }
    this.hash.update("\n");
    this.count += 1;
  }

  get rows(): number {
    return this.count;
  }

  /** The hex digest; the digest can take no more rows after this. */
  finish(): { rows: number; digest: string } {
    return { rows: this.count, digest: this.hash.digest("hex") };
  }
}
