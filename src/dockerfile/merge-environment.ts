// Merges the resolved ENV of every applied repository into one export list: a name with the same value
// everywhere is exported once; a name with different values is scoped per repository by the naming rules
// (the first repository keeps the plain name, later ones get REPO_<NAME>__<VAR>) and the conflict recorded.
import { assignVariableNames, type NamingLedger } from "../naming/index.js";

export interface RepositoryEnvironment {
  repository: string;
  variables: { name: string; value: string }[];
}

export interface MergedEntry {
  assigned: string;
  name: string;
  value: string;
  repository: string;
  /** Other repositories whose identical value this export also stands for. */
  sharedWith: string[];
}

export interface EnvironmentConflict {
  name: string;
  /** Each repository's name for its own value. */
  assignments: { repository: string; assigned: string }[];
}

export interface MergedEnvironment {
  entries: MergedEntry[];
  conflicts: EnvironmentConflict[];
}

/** Repositories in the order they were first applied; each repository's variables in Dockerfile order. */
export function mergeRepositoryEnvironments(
  repositories: readonly RepositoryEnvironment[],
): MergedEnvironment {
  let ledger: NamingLedger = { entries: [] };
  const entries: MergedEntry[] = [];
  const byAssigned = new Map<string, MergedEntry>();
  const plain = new Map<string, MergedEntry>();
  const conflicts = new Map<string, EnvironmentConflict>();
  for (const repo of repositories) {
    const toAssign: { name: string; value: string }[] = [];
    for (const variable of repo.variables) {
      const existing = plain.get(variable.name);
      if (existing && existing.value === variable.value) {
        if (existing.repository !== repo.repository) existing.sharedWith.push(repo.repository);
      } else toAssign.push(variable);
    }
    const result = assignVariableNames(ledger, {
      repositoryId: repo.repository,
      repository: repo.repository,
      variables: toAssign.map((v) => v.name),
    });
    ledger = result.ledger;
    toAssign.forEach((variable, i) => {
      const assigned = result.assignments[i]!.assigned;
      const entry: MergedEntry = { assigned, ...variable, repository: repo.repository, sharedWith: [] };
      const previous = byAssigned.get(assigned);
      if (previous) Object.assign(previous, entry);
      else {
        entries.push(entry);
        byAssigned.set(assigned, entry);
      }
      if (assigned === variable.name) plain.set(variable.name, entry);
      else {
        const owner = plain.get(variable.name);
        const conflict = conflicts.get(variable.name) ?? {
          name: variable.name,
          assignments: owner ? [{ repository: owner.repository, assigned: owner.assigned }] : [],
        };
        conflict.assignments.push({ repository: repo.repository, assigned });
        conflicts.set(variable.name, conflict);
      }
    });
  }
  return { entries, conflicts: [...conflicts.values()] };
}
