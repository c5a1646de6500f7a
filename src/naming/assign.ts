// Assigns shell variable names for one repository against the engagement's ledger. Pure and deterministic.
import { SHELL_NAME_PATTERN } from "../envfile/overlay.js";
import { InputError } from "../errors.js";
import { chooseQualifier, qualifiedName, qualifierOf, suffixForRepositoryId } from "./qualifier.js";
import type { LedgerEntry, NameAssignment, NamingLedger, RepositoryVariables } from "./types.js";

/**
 * The first repository to commit a variable keeps its plain name; a later collision gets
 * `REPO_<QUALIFIER>__<VARIABLE>`. Earlier assignments (live or reserved) are never changed or reused; a
 * repository's own reserved names come back to it when it is activated again. Returns the grown ledger and
 * one assignment per input position (so callers may zip by index); a name listed twice is assigned once and
 * reported at both positions.
 */
export function assignVariableNames(
  ledger: NamingLedger,
  input: RepositoryVariables,
): { ledger: NamingLedger; assignments: NameAssignment[] } {
  checkInput(input);
  const { repositoryId, repository } = input;
  const entries: LedgerEntry[] = [...ledger.entries];
  const taken = new Set(entries.map((entry) => entry.assigned));
  const own = new Map<string, number>();
  entries.forEach((entry, index) => {
    if (entry.repositoryId === repositoryId && !own.has(entry.variable)) own.set(entry.variable, index);
  });

  const assignments: NameAssignment[] = [];
  for (const variable of input.variables) {
    let index = own.get(variable);
    if (index === undefined) {
      const assigned = taken.has(variable) ? qualify(entries, taken, input, variable) : variable;
      index = entries.push({ repositoryId, repository, variable, assigned, status: "live" }) - 1;
      own.set(variable, index);
      taken.add(assigned);
    } else if (entries[index]!.status === "reserved") {
      entries[index] = { ...entries[index]!, status: "live" };
    }
    const entry = entries[index]!;
    assignments.push({
      repositoryId,
      repository,
      variable,
      assigned: entry.assigned,
      qualified: qualifierOf(entry) !== undefined,
    });
  }
  return { ledger: { entries }, assignments };
}

function qualify(
  entries: readonly LedgerEntry[],
  taken: ReadonlySet<string>,
  input: RepositoryVariables,
  variable: string,
): string {
  const qualifier = chooseQualifier(entries, input.repositoryId, input.repository);
  let assigned = qualifiedName(qualifier, variable);
  // Only a literal variable named like a qualified one can be in the way; step aside deterministically.
  const suffix = suffixForRepositoryId(input.repositoryId);
  const stepAside = qualifier.endsWith(suffix) ? qualifier : `${qualifier}_${suffix}`;
  for (let n = 1; taken.has(assigned); n++) {
    assigned = qualifiedName(n === 1 ? stepAside : `${stepAside}_${n}`, variable);
  }
  return assigned;
}

function checkInput(input: RepositoryVariables): void {
  if (input.repositoryId.length === 0) {
    throw new InputError("repositoryId must not be empty", { path: "repositoryId" });
  }
  if (input.repository.length === 0) {
    throw new InputError("repository must not be empty", { path: "repository" });
  }
  const bad = input.variables
    .map((name, index) => ({ name, index }))
    .filter(({ name }) => !SHELL_NAME_PATTERN.test(name));
  if (bad.length > 0) {
    // Variable names are not secret; naming them is what lets the owner fix the configuration.
    const names = bad.map(({ name }) => JSON.stringify(name)).join(", ");
    throw new InputError(
      `variable names must match [A-Za-z_][A-Za-z0-9_]*: ${names} in ${input.repository}`,
      {
        path: `variables[${bad[0]!.index}]`,
        details: { invalidNames: bad.map(({ name }) => name) },
      },
    );
  }
}
