// `baton admin migrate-store`: copies a stopped service's SQLite store into an empty PostgreSQL database and
// checks the copy by reading both back. Talks to the stores directly, not to a running service. Progress goes
// to stderr, the table of copied rows (or --json) to stdout; the database URL is only ever printed redacted.
import { resolve } from "node:path";
import type { Command } from "commander";
import type { CommandContext } from "../../context.js";
import { writeJson, writeLine, writeLines } from "../../io.js";

interface Flags {
  db: string;
  databaseUrl: string;
  json?: boolean;
}

const count = (n: number) => n.toLocaleString("en-US");
const rowsOf = (n: number) => `${count(n)} ${n === 1 ? "row" : "rows"}`;

export function declare(command: Command, { io, action }: CommandContext): void {
  command
    .requiredOption("--db <file>", "the SQLite store of the stopped baton serve (opened read-only)")
    .requiredOption(
      "--database-url <url>",
      "the empty PostgreSQL database to copy into, postgres://user@host:5432/database (password from PGPASSWORD or the URL; a schema with ?options=-c%20search_path%3D<schema>)",
    )
    .option("--json", "print {tables: [{name, rows}], rows, version} as JSON")
    .action(
      action(async (flags: Flags) => {
        const { migrateSqliteToPostgres } = await import("../../../server/store/migrate-to-postgres.js");
        const { redactDatabaseUrl } = await import("../../../server/store/database-url.js");
        const result = await migrateSqliteToPostgres({
          dbPath: resolve(io.cwd, flags.db),
          databaseUrl: flags.databaseUrl,
          onProgress: ({ table, rows }) => writeLine(io.stderr, `copying ${table}: ${rowsOf(rows)}`),
        });
        if (flags.json) {
          writeJson(io.stdout, { tables: result.tables, rows: result.rows, version: result.version });
          return undefined;
        }
        const width = Math.max(5, ...result.tables.map((table) => table.name.length));
        const line = (name: string, rows: string) => `${name.padEnd(width)}  ${rows.padStart(11)}`;
        writeLines(io.stdout, [
          line("table", "rows"),
          ...result.tables.map((table) => line(table.name, count(table.rows))),
          line("total", count(result.rows)),
        ]);
        writeLine(
          io.stderr,
          `Copied ${result.tables.length} tables (${rowsOf(result.rows)}) into ${redactDatabaseUrl(flags.databaseUrl)} at schema version ${result.version}, and read both back: they agree. The SQLite file is unchanged.`,
        );
        return undefined;
      }),
    );
}
