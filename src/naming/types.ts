// The naming ledger's plain data: what the server stores per engagement and passes back in on every activation.

export interface LedgerEntry {
  repositoryId: string;
  repository: string;
  variable: string;
  assigned: string;
  /** `reserved`: the repository was disconnected; the name is never handed to another repository. */
  status: "live" | "reserved";
}

/** Entries in commit order. Entries are never removed, only reserved. */
export interface NamingLedger {
  entries: readonly LedgerEntry[];
}

export interface RepositoryVariables {
  repositoryId: string;
  /** `owner/name`; the qualifier comes from the `name` part. */
  repository: string;
  variables: readonly string[];
}

export interface NameAssignment {
  repositoryId: string;
  repository: string;
  variable: string;
  assigned: string;
  /** True when `assigned` is the `REPO_<QUALIFIER>__<VARIABLE>` form. */
  qualified: boolean;
}
