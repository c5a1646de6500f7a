// `baton admin prune-sandboxes`: removes the sandbox boxes of a stopped `baton serve` (a stop keeps them for the
// next start). Works on the service's files, not on a running service, like migrate-store: with an SQLite store
// it takes the store's lock first, so a running service is never pruned.
import { dirname, join, resolve } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../../errors.js";
import type { CommandContext } from "../../context.js";
import { writeJson, writeLine } from "../../io.js";

interface Flags {
  sandboxDriver: string;
  db?: string;
  workDir?: string;
  json?: boolean;
}

const DRIVERS = ["docker", "namespace"] as const;

export function declare(command: Command, { io, action }: CommandContext): void {
  command
    .requiredOption(
      "--sandbox-driver <driver>",
      "the stopped service's --sandbox-driver: docker or namespace",
    )
    .option(
      "--db <file>",
      "the stopped service's SQLite store (its lock proves no baton serve runs on it; default: baton serve's)",
    )
    .option(
      "--work-dir <dir>",
      "the stopped service's state folder (default: work/ beside --db); alone, for a service on PostgreSQL: stop every instance on it first",
    )
    .option("--json", "print {removed: [<box>…]} as JSON")
    .action(
      action(async (flags: Flags) => {
        const driver = DRIVERS.find((name) => name === flags.sandboxDriver);
        if (!driver) throw new UsageError("--sandbox-driver must be docker or namespace");
        const { defaultDatabasePath } = await import("../../../server/serve-store.js");
        const { lockStore } = await import("../../../server/store/store-lock.js");
        const { pruneServiceSandboxes } = await import("../../../server/adapters/sandboxes/prune.js");
        // The lock is checked unless only --work-dir names the service (PostgreSQL has no lock file).
        const dbPath =
          flags.db || !flags.workDir ? resolve(io.cwd, flags.db ?? defaultDatabasePath(io.env)) : undefined;
        const serviceDir = resolve(io.cwd, flags.workDir ?? join(dirname(dbPath!), "work"));
        const lock = dbPath ? await lockStore(dbPath) : undefined;
        try {
          const removed = await pruneServiceSandboxes({ driver, serviceDir, env: io.env });
          if (flags.json) writeJson(io.stdout, { removed });
          else
            writeLine(
              io.stdout,
              removed.length === 0
                ? `No sandboxes of ${serviceDir} were left (${driver}).`
                : `Removed ${removed.length} sandbox${removed.length === 1 ? "" : "es"} of ${serviceDir} (${driver}), with their network.`,
            );
        } finally {
          lock?.release();
        }
        return undefined;
      }),
    );
}
