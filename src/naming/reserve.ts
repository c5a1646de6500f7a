import type { NamingLedger } from "./types.js";

/** Disconnecting a repository keeps its names in the ledger as `reserved`: no other repository gets them. */
export function reserveRepositoryNames(ledger: NamingLedger, repositoryId: string): NamingLedger {
  return {
    entries: ledger.entries.map((entry) =>
      entry.repositoryId === repositoryId && entry.status === "live"
        ? { ...entry, status: "reserved" }
        : entry,
    ),
  };
}
