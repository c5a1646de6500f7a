// Builds the overlay document for an engagement from its live ledger entries and the repositories' current
// configuration. Pure. Secrets appear as placeholders only; a variable without a live assignment (added to the
// configuration after the repository's last activation) waits for that repository's next activation.
import type { Overlay } from "../../../envfile/overlay.js";
import type { LedgerEntry } from "../../../naming/index.js";
import { formatSecretPlaceholder } from "../../../transport/wire.js";

export interface RepositoryConfiguration {
  repositoryId: string;
  repository: string;
  sandboxEnv: readonly { name: string; value: string }[];
  secrets: readonly { id: string; name: string }[];
}

export function buildOverlay(
  revision: number,
  repositories: readonly RepositoryConfiguration[],
  ledger: readonly LedgerEntry[],
): Overlay {
  const assigned = new Map<string, string>();
  for (const entry of ledger) {
    if (entry.status === "live") assigned.set(`${entry.repositoryId}\n${entry.variable}`, entry.assigned);
  }
  return {
    revision,
    repositories: repositories.map((repo) => {
      const variables: Overlay["repositories"][number]["variables"] = [];
      for (const { name, value } of repo.sandboxEnv) {
        const name2 = assigned.get(`${repo.repositoryId}\n${name}`);
        if (name2) variables.push({ name, assigned: name2, value, source: "sandbox.env" });
      }
      for (const secret of repo.secrets) {
        const name2 = assigned.get(`${repo.repositoryId}\n${secret.name}`);
        if (name2) {
          variables.push({
            name: secret.name,
            assigned: name2,
            value: formatSecretPlaceholder(secret.id),
            source: "secret",
          });
        }
      }
      return { repository: repo.repository, repositoryId: repo.repositoryId, variables };
    }),
  };
}

export function variableMapping(overlay: Overlay) {
  return overlay.repositories.flatMap((repo) =>
    repo.variables.map((v) => ({
      repository: repo.repository,
      name: v.name,
      assigned: v.assigned,
      source: v.source,
    })),
  );
}
