// Loads Node's built-in `node:sqlite` without its one "SQLite is an experimental feature" warning: operators and
// tests read `baton serve` stderr, and that line is noise there. Every other warning still prints.
import type * as Sqlite from "node:sqlite";

let loaded: Promise<typeof Sqlite> | undefined;

export function loadSqlite(): Promise<typeof Sqlite> {
  loaded ??= importQuietly();
  return loaded;
}

async function importQuietly(): Promise<typeof Sqlite> {
  const original = process.emitWarning;
  process.emitWarning = function filtered(this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === "string" ? warning : warning.message;
    const first = rest[0];
    const type = typeof first === "string" ? first : (first as { type?: string } | undefined)?.type;
    if (type === "ExperimentalWarning" && text.includes("SQLite")) return;
    return (original as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return await import("node:sqlite");
  } finally {
    process.emitWarning = original;
  }
}

export type Database = Sqlite.DatabaseSync;
