// What the egress proxy learns about a lease: its sandbox, workspace and engagement, and the secrets of the
// repositories activated in that engagement with their values opened and their approved destinations, plus, with
// a code-host App, the installation tokens behind the placeholders boxes push with. This is the one place secret
// values are decrypted and installation tokens handed out.
import type { Logger } from "pino";

import type { LeasePolicyResponse } from "../../../proxy/lease/wire.js";
import { formatSecretPlaceholder } from "../../../transport/wire.js";
import { modelKeyHeaders } from "../../adapters/agents/catalog.js";
import type { CodehostAppApi } from "../../adapters/codehost/app-api.js";
import { touchActivity } from "../../adapters/sandboxes/store.js";
import { type SecretBox, secretScope } from "../../primitives/secret-box.js";
import { hashCredential } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";
import { installationsOfBox, mintInstallationSecrets } from "./codehost-lease-secrets.js";

/** The code-host App whose installation tokens the lease carries (unset: the local code host, none). */
export interface LeaseCodehost {
  app: CodehostAppApi | undefined;
  logger: Logger;
}

export async function lookupLeasePolicy(
  db: Store,
  box: SecretBox,
  lease: string,
  nowMs: number,
  codehost?: LeaseCodehost,
): Promise<LeasePolicyResponse | null> {
  const sandbox = (await db.get(
    `SELECT s.id, s.engagement_id, s.lease_expires_at_ms, e.workspace_id
       FROM sandboxes s JOIN engagements e ON e.id = s.engagement_id WHERE s.lease_hash = ?`,
    [hashCredential(lease)],
  )) as { id: string; engagement_id: string; lease_expires_at_ms: number; workspace_id: string } | undefined;
  if (!sandbox || sandbox.lease_expires_at_ms <= nowMs) return null;
  // A request through the proxy is a use of the lease: sandbox activity (DESIGN "Sandbox activity").
  await touchActivity(db, sandbox.id, nowMs);
  const rows = (await db.all(
    `SELECT sec.id, sec.repository_id, sec.name, sec.value_sealed, sec.allowed_hosts_json
       FROM engagement_repositories er
       JOIN repositories r ON r.id = er.repository_id AND r.connected = 1
       JOIN secrets sec ON sec.repository_id = r.id
       WHERE er.engagement_id = ? ORDER BY er.position, sec.name`,
    [sandbox.engagement_id],
  )) as {
    id: string;
    repository_id: string;
    name: string;
    value_sealed: string | null;
    allowed_hosts_json: string;
  }[];
  // A coding agent's model key is needed before the agent can activate anything: the task's repository's secret
  // that is a catalog agent's key for its model's host rides every lease of the task's boxes, activated or not.
  const modelKeys = (
    (await db.all(
      `SELECT sec.id, sec.repository_id, sec.name, sec.value_sealed, sec.allowed_hosts_json
         FROM tasks t
         JOIN repositories r ON r.workspace_id = t.workspace_id AND r.slug = t.repo AND r.connected = 1
         JOIN secrets sec ON sec.repository_id = r.id
         WHERE t.id = ? ORDER BY sec.name`,
      [sandbox.engagement_id],
    )) as typeof rows
  ).filter(
    (row) =>
      !rows.some((known) => known.id === row.id) &&
      modelKeyHeaders(row.name, JSON.parse(row.allowed_hosts_json) as string[]) !== undefined,
  );
  const owner = {
    sandboxId: sandbox.id,
    workspaceId: sandbox.workspace_id,
    engagementId: sandbox.engagement_id,
  };
  // Read before the first await: the store's rows and the tokens describe the same moment.
  const installations = await (codehost?.app ? installationsOfBox(db, owner) : []);
  const tokens =
    codehost?.app && installations.length > 0
      ? await mintInstallationSecrets(installations, codehost.app, codehost.logger)
      : [];
  return {
    sandboxId: sandbox.id,
    workspaceId: sandbox.workspace_id,
    engagementId: sandbox.engagement_id,
    leaseExpiresAt: new Date(sandbox.lease_expires_at_ms).toISOString(),
    // A row the seed left without a value (none known yet) has nothing to swap in.
    secrets: [...rows, ...modelKeys]
      .flatMap((row) => {
        if (row.value_sealed === null) return [];
        const destinations = JSON.parse(row.allowed_hosts_json) as string[];
        const headers = modelKeyHeaders(row.name, destinations);
        return [
          {
            id: row.id,
            placeholder: formatSecretPlaceholder(row.id),
            value: box.open(secretScope(row.repository_id, row.name), row.value_sealed),
            destinations,
            ...(headers ? { headers } : {}),
          },
        ];
      })
      .concat(tokens),
  };
}
