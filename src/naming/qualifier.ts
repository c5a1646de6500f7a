// Qualifiers for `REPO_<QUALIFIER>__<VARIABLE>`: the normalised repository name, plus a stable id suffix
// when an earlier repository's name normalises alike.
import type { LedgerEntry } from "./types.js";

export const QUALIFIED_PREFIX = "REPO_";
export const QUALIFIED_SEPARATOR = "__";

/** Upper case, every character outside A-Z and 0-9 becomes `_`, runs collapsed, trimmed. */
export function normaliseQualifier(repositoryName: string): string {
  const slash = repositoryName.lastIndexOf("/");
  const name = slash === -1 ? repositoryName : repositoryName.slice(slash + 1);
  return name
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** A short stable suffix from the repository id: FNV-1a (32 bit) in base 36, upper case, 7 characters. */
export function suffixForRepositoryId(repositoryId: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < repositoryId.length; i++) {
    hash ^= repositoryId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(36).toUpperCase().padStart(7, "0");
}

export function qualifiedName(qualifier: string, variable: string): string {
  return `${QUALIFIED_PREFIX}${qualifier}${QUALIFIED_SEPARATOR}${variable}`;
}

/** The qualifier an entry was given, or undefined when its name is unqualified. */
export function qualifierOf(entry: Pick<LedgerEntry, "variable" | "assigned">): string | undefined {
  const tail = `${QUALIFIED_SEPARATOR}${entry.variable}`;
  const { assigned } = entry;
  if (assigned === entry.variable || !assigned.startsWith(QUALIFIED_PREFIX) || !assigned.endsWith(tail)) {
    return undefined;
  }
  const qualifier = assigned.slice(QUALIFIED_PREFIX.length, assigned.length - tail.length);
  return qualifier.length > 0 ? qualifier : undefined;
}

/**
 * The qualifier for `repositoryId`: the one it already used (sticky, also across renames); otherwise its
 * normalised name, unless a repository that appeared earlier in the ledger normalises alike or another
 * repository already uses that qualifier, in which case the id suffix is appended.
 */
export function chooseQualifier(
  entries: readonly LedgerEntry[],
  repositoryId: string,
  repository: string,
): string {
  const usedByOthers = new Set<string>();
  for (const entry of entries) {
    const used = qualifierOf(entry);
    if (used === undefined) continue;
    if (entry.repositoryId === repositoryId) return used;
    usedByOthers.add(used);
  }
  const base = normaliseQualifier(repository);
  const earlierAlike = earlierRepositoryNames(entries, repositoryId).some(
    (name) => normaliseQualifier(name) === base,
  );
  if (base !== "" && !earlierAlike && !usedByOthers.has(base)) return base;
  const suffix = suffixForRepositoryId(repositoryId);
  let candidate = base === "" ? suffix : `${base}_${suffix}`;
  // Two ids hashing alike is astronomically rare; stay unique and deterministic if it happens.
  for (let n = 2; usedByOthers.has(candidate); n++) {
    candidate = `${base === "" ? suffix : `${base}_${suffix}`}_${n}`;
  }
  return candidate;
}

/** Names (as first seen) of the other repositories that appear in the ledger before `repositoryId` does. */
function earlierRepositoryNames(entries: readonly LedgerEntry[], repositoryId: string): string[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    if (entry.repositoryId === repositoryId) break;
    if (seen.has(entry.repositoryId)) continue;
    seen.add(entry.repositoryId);
    names.push(entry.repository);
  }
  return names;
}
