// What the egress proxy learns about a lease: its sandbox, workspace and engagement, and the secrets of the
// repositories activated in that engagement with their values opened and their approved destinations. This is
// the one place secret values are decrypted.

import type { LeasePolicyResponse } from "../../proxy/lease/wire.js";
import { formatSecretPlaceholder } from "../../transport/wire.js";
import { hashCredential } from "../auth/tokens.js";
import { touchActivity } from "../sandboxes/store.js";
import { type SecretBox, secretScope } from "../secrets/secret-box.js";
import type { Database } from "../store/sqlite.js";

export function lookupLeasePolicy(
  db: Database,
  box: SecretBox,
  lease: string,
  nowMs: number,
): LeasePolicyResponse | null {
  const sandbox = db
    .prepare(
      `SELECT s.id, s.engagement_id, s.lease_expires_at_ms, e.workspace_id
       FROM sandboxes s JOIN engagements e ON e.id = s.engagement_id WHERE s.lease_hash = ?`,
    )
    .get(hashCredential(lease)) as
    | { id: string; engagement_id: string; lease_expires_at_ms: number; workspace_id: string }
    | undefined;
  if (!sandbox || sandbox.lease_expires_at_ms <= nowMs) return null;
  // A request through the proxy is a use of the lease: sandbox activity (DESIGN "Sandbox activity").
  touchActivity(db, sandbox.id, nowMs);
  const rows = db
    .prepare(
      `SELECT sec.id, sec.repository_id, sec.name, sec.value_sealed, sec.allowed_hosts_json
       FROM engagement_repositories er
       JOIN repositories r ON r.id = er.repository_id AND r.connected = 1
       JOIN secrets sec ON sec.repository_id = r.id
       WHERE er.engagement_id = ? ORDER BY er.position, sec.name`,
    )
    .all(sandbox.engagement_id) as {
    id: string;
    repository_id: string;
    name: string;
    value_sealed: string | null;
    allowed_hosts_json: string;
  }[];
  return {
    sandboxId: sandbox.id,
    workspaceId: sandbox.workspace_id,
    engagementId: sandbox.engagement_id,
    leaseExpiresAt: new Date(sandbox.lease_expires_at_ms).toISOString(),
    // A row the seed left without a value (none known yet) has nothing to swap in.
    secrets: rows.flatMap((row) => {
      if (row.value_sealed === null) return [];
      return [
        {
          id: row.id,
          placeholder: formatSecretPlaceholder(row.id),
          value: box.open(secretScope(row.repository_id, row.name), row.value_sealed),
          destinations: JSON.parse(row.allowed_hosts_json) as string[],
        },
      ];
    }),
  };
}
