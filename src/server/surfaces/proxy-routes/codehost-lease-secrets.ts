// The code host's installation tokens as lease secrets: for each installation giving a repository of the box's
// engagement, the proxy learns the installation's placeholder, the current token and the hosts it is approved for
// (the App's `tokenDestinations`), so a push from the box carrying the placeholder reaches the code host with the
// token, and the box never holds it. Minted only here, inside the proxy's lease lookup (DESIGN "Secrets").
import type { Logger } from "pino";
import type { LeasePolicyResponse } from "../../../proxy/lease/wire.js";
import { formatSecretPlaceholder } from "../../../transport/wire.js";
import type { CodehostAppApi } from "../../adapters/codehost/app-api.js";
import { type Installation, installationOfRepo } from "../../adapters/codehost/installations.js";
import type { Store } from "../../store/store.js";

type LeaseSecretWire = LeasePolicyResponse["secrets"][number];

export interface BoxOfLease {
  sandboxId: string;
  workspaceId: string;
  engagementId: string;
}

/**
 * The repositories of a box's engagement: those activated in it, the one the box was made for, and the task's
 * own (a task's engagement is the task) — each counted once.
 */
export async function repositoriesOfBox(db: Store, box: BoxOfLease): Promise<string[]> {
  const rows = (await db.all(
    `SELECT r.slug AS slug FROM engagement_repositories er JOIN repositories r ON r.id = er.repository_id
       WHERE er.engagement_id = ? AND r.connected = 1
     UNION SELECT repository FROM sandbox_boxes WHERE sandbox_id = ? AND repository IS NOT NULL
     UNION SELECT repo FROM tasks WHERE id = ? AND workspace_id = ? AND repo IS NOT NULL`,
    [box.engagementId, box.sandboxId, box.engagementId, box.workspaceId],
  )) as { slug: string }[];
  return rows.map((row) => row.slug);
}

/** The distinct, unsuspended installations that give those repositories to the box's workspace. */
export async function installationsOfBox(db: Store, box: BoxOfLease): Promise<Installation[]> {
  const found = new Map<string, Installation>();
  for (const repo of await repositoriesOfBox(db, box)) {
    const installation = await installationOfRepo(db, box.workspaceId, repo);
    if (installation && !installation.suspended) found.set(installation.installationId, installation);
  }
  return [...found.values()];
}

/**
 * One lease secret per installation, its value the installation's current token. A token that cannot be minted
 * leaves that secret out (the rest of the lease still works) and is logged with the installation, never a value.
 */
export async function mintInstallationSecrets(
  installations: readonly Installation[],
  app: CodehostAppApi,
  logger: Logger,
): Promise<LeaseSecretWire[]> {
  const minted = await Promise.all(
    installations.map(async (installation): Promise<LeaseSecretWire | null> => {
      try {
        const { token } = await app.installationToken(installation.installationId);
        return {
          id: installation.credentialId,
          placeholder: formatSecretPlaceholder(installation.credentialId),
          value: token,
          destinations: [...app.tokenDestinations],
        };
      } catch (error) {
        logger.warn(
          {
            installationId: installation.installationId,
            credentialId: installation.credentialId,
            err: (error as Error).name,
            reason: (error as Error).message.slice(0, 200),
          },
          "installation token could not be minted: the box's placeholder goes out unswapped until one can be",
        );
        return null;
      }
    }),
  );
  return minted.filter((secret): secret is LeaseSecretWire => secret !== null);
}
