// Everything an activation reads, in one statement: whether it may still run, the engagement's naming ledger, the
// workspace's disconnected repositories, the activated repositories with their sandbox.env, secrets and
// `.batonrc.json`, and the repository's current environment version. On PostgreSQL each statement is a round trip
// (and most of the service's CPU per activation went to them): these were eleven. The rows of every part come
// back in one UNION ALL of uniform columns (`kind`, seven text columns, one integer), ordered by the database as
// each part's own query ordered them, and are sorted into their parts here.
import type { NamingLedger } from "../../../naming/index.js";
import { mergeSandboxEnv } from "../../adapters/sandboxes/sandbox-env.js";
import type { OperationRow } from "../../store/operations.js";
import type { Store } from "../../store/store.js";
import type { RepositoryConfiguration } from "./build-overlay.js";
import { toEnvironmentVersion } from "./engagement-state.js";
import type { EnvironmentVersion } from "./managed-startup.js";

/** What the still-allowed check reads: the turn's and lease's ends, the rollout gate, the repository's link. */
export interface AllowedFacts {
  turn_expires: number;
  lease_expires: number;
  rollout: number;
  connected: number;
}

export interface ActivationInputs {
  allowed: AllowedFacts;
  ledger: NamingLedger;
  disconnected: Set<string>;
  /** Every variable name the activated repository brings (sandbox.env of both sources, secrets), sorted. */
  variableNames: string[];
  /** Whether the repository is already among the engagement's activated ones (nothing to remember). */
  remembered: boolean;
  /** The connected activated repositories, this one included, in first-activation order, configured. */
  configurations: RepositoryConfiguration[];
  version: EnvironmentVersion | undefined;
}

interface Row {
  kind: string;
  a: string | null;
  b: string | null;
  c: string | null;
  d: string | null;
  e: string | null;
  f: string | null;
  g: string | null;
  n: number | null;
}

// Parameters, in order: turn, sandbox, workspace, repository (allowed); engagement (ledger); workspace
// (disconnected); engagement (activated); engagement, repository (sandbox.env); engagement, repository (secrets);
// engagement (batonrc); repository (version).
const INPUTS_SQL = `
SELECT 'turn' AS kind, NULL AS a, NULL AS b, NULL AS c, NULL AS d, NULL AS e, NULL AS f, NULL AS g,
    (SELECT expires_at_ms FROM turns WHERE id = ?) AS n
UNION ALL SELECT 'lease', NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    (SELECT lease_expires_at_ms FROM sandboxes WHERE id = ?)
UNION ALL SELECT 'rollout', NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    (SELECT rollout_repository_environments FROM workspaces WHERE id = ?)
UNION ALL SELECT 'connected', NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    (SELECT connected FROM repositories WHERE id = ?)
UNION ALL SELECT 'ledger', repository_id, repository, variable, assigned, status, NULL, NULL, position
  FROM ledger_entries WHERE engagement_id = ?
UNION ALL SELECT 'disconnected', id, NULL, NULL, NULL, NULL, NULL, NULL, NULL
  FROM repositories WHERE workspace_id = ? AND connected = 0
UNION ALL SELECT 'activated', r.id, r.slug, NULL, NULL, NULL, NULL, NULL, er.position
  FROM engagement_repositories er JOIN repositories r ON r.id = er.repository_id
  WHERE er.engagement_id = ? AND r.connected = 1
UNION ALL SELECT 'env', repository_id, name, value, NULL, NULL, NULL, NULL, NULL FROM sandbox_env
  WHERE repository_id IN (SELECT repository_id FROM engagement_repositories WHERE engagement_id = ?) OR repository_id = ?
UNION ALL SELECT 'secret', repository_id, name, id, NULL, NULL, NULL, NULL, NULL FROM secrets
  WHERE repository_id IN (SELECT repository_id FROM engagement_repositories WHERE engagement_id = ?) OR repository_id = ?
UNION ALL SELECT 'batonrc', repository, batonrc_json, NULL, NULL, NULL, NULL, NULL, NULL FROM (
    SELECT repository, batonrc_json,
      ROW_NUMBER() OVER (PARTITION BY repository ORDER BY created_at_ms DESC, sandbox_id DESC) AS newest
    FROM sandbox_boxes WHERE engagement_id = ?) boxes
  WHERE newest = 1
UNION ALL SELECT 'version', v.version_id, v.dockerfile_path, v.agent_instructions_path, v.startup_script_path,
    v.run_path, v.evidence_path, v.readiness_json, v.startup_timeout_seconds
  FROM environment_versions v JOIN repositories r ON r.id = v.repository_id AND r.current_version_id = v.version_id
  WHERE r.id = ?
ORDER BY kind, n, b`;

export async function loadActivationInputs(db: Store, op: OperationRow): Promise<ActivationInputs> {
  const rows = await db.all<Row>(INPUTS_SQL, [
    op.turn_id,
    op.sandbox_id,
    op.workspace_id,
    op.repository_id,
    op.engagement_id,
    op.workspace_id,
    op.engagement_id,
    op.engagement_id,
    op.repository_id,
    op.engagement_id,
    op.repository_id,
    op.engagement_id,
    op.repository_id,
  ]);
  return sortInputs(rows, op);
}

/** The rows of INPUTS_SQL sorted into their parts. Pure. */
function sortInputs(rows: readonly Row[], op: Pick<OperationRow, "repository_id" | "repository">) {
  const facts = new Map<string, number | null>();
  const ledger: NamingLedger["entries"][number][] = [];
  const disconnected = new Set<string>();
  const activated: { id: string; slug: string }[] = [];
  const env = new Map<string, { name: string; value: string }[]>();
  const secrets = new Map<string, { id: string; name: string }[]>();
  const batonrc = new Map<string, Record<string, string>>();
  let version: EnvironmentVersion | undefined;
  for (const row of rows) {
    switch (row.kind) {
      case "ledger":
        ledger.push({
          repositoryId: row.a!,
          repository: row.b!,
          variable: row.c!,
          assigned: row.d!,
          status: row.e as "live" | "reserved",
        });
        break;
      case "disconnected":
        disconnected.add(row.a!);
        break;
      case "activated":
        activated.push({ id: row.a!, slug: row.b! });
        break;
      case "env":
        push(env, row.a!, { name: row.b!, value: row.c! });
        break;
      case "secret":
        push(secrets, row.a!, { id: row.c!, name: row.b! });
        break;
      case "batonrc":
        batonrc.set(row.a!, batonrcEnv(row.b));
        break;
      case "version":
        version = toEnvironmentVersion({
          version_id: row.a!,
          dockerfile_path: row.b,
          agent_instructions_path: row.c,
          startup_script_path: row.d,
          run_path: row.e,
          evidence_path: row.f,
          readiness_json: row.g!,
          startup_timeout_seconds: row.n,
        });
        break;
      default:
        // A missing row is NULL, as in checkStillAllowed's query: `null <= now` holds, so it refuses.
        facts.set(row.kind, row.n === null ? null : Number(row.n));
    }
  }
  const remembered = activated.some((r) => r.id === op.repository_id);
  // Remembered now, the repository comes last: its position is one past the engagement's highest.
  if (!remembered) activated.push({ id: op.repository_id, slug: op.repository });
  const names = new Set([
    ...(env.get(op.repository_id) ?? []).map((v) => v.name),
    ...(secrets.get(op.repository_id) ?? []).map((s) => s.name),
    ...Object.keys(batonrc.get(op.repository) ?? {}),
  ]);
  return {
    allowed: {
      turn_expires: facts.get("turn") as number,
      lease_expires: facts.get("lease") as number,
      rollout: facts.get("rollout") as number,
      connected: facts.get("connected") as number,
    },
    ledger: { entries: ledger },
    disconnected,
    variableNames: [...names].sort(),
    remembered,
    configurations: activated.map((r) => {
      const repoSecrets = secrets.get(r.id) ?? [];
      return {
        repositoryId: r.id,
        repository: r.slug,
        sandboxEnv: mergeSandboxEnv({
          configured: env.get(r.id) ?? [],
          batonrc: batonrc.get(r.slug) ?? {},
          secretNames: repoSecrets.map((s) => s.name),
        }),
        secrets: repoSecrets,
      };
    }),
    version,
  };
}

function push<T>(groups: Map<string, T[]>, key: string, value: T): void {
  const group = groups.get(key);
  if (group) group.push(value);
  else groups.set(key, [value]);
}

function batonrcEnv(json: string | null): Record<string, string> {
  if (!json) return {};
  const batonrc = JSON.parse(json) as { sandbox?: { env?: Record<string, string> } };
  return batonrc.sandbox?.env ?? {};
}
