// Classifies an ops request's credentials: the turn token (bearer) and the sandbox lease must both be known,
// unexpired and of the same engagement. Any failure is the same 401, so nothing reveals what exists.
// `allowExpired` is for reading an operation's state only: a sandbox whose lease or turn ran out mid-operation
// must still learn that its operation failed terminally (exit 6, with the reason), not just "invalid token".
import { HEADERS } from "../../../transport/wire.js";
import { touchActivity } from "../../adapters/sandboxes/store.js";
import { hashCredential } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";
import { domainError } from "../errors.js";

export interface Caller {
  workspaceId: string;
  engagementId: string;
  turnId: string;
  sandboxId: string;
  rolloutEnabled: boolean;
  /**
   * The lease use, when authenticate left recording it to the request (`deferActivity`): the request records it
   * in its own transaction and sets `recorded`; whoever ran authenticate records it otherwise.
   */
  activity?: PendingActivity;
}

export interface PendingActivity {
  atMs: number;
  recorded: boolean;
}

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

/** The one refusal for a credential that is missing, unknown or of another engagement: it reveals nothing. */
const UNKNOWN_CREDENTIALS = "the turn token or sandbox lease is missing, unknown or expired";

export async function authenticate(
  db: Store,
  headers: Headers,
  nowMs: number,
  options: { allowExpired?: boolean; deferActivity?: boolean } = {},
): Promise<Caller> {
  const bearer = BEARER.exec(headers.get(HEADERS.authorization) ?? "")?.[1];
  const lease = headers.get(HEADERS.sandboxLease);
  if (!bearer || !lease || lease.length > 512) throw domainError("invalid_token", UNKNOWN_CREDENTIALS);
  // One lookup: no row when either credential is unknown or they belong to different engagements.
  const found = (await db.get(
    `SELECT t.id AS turn_id, t.engagement_id, t.expires_at_ms, s.id AS sandbox_id, s.lease_expires_at_ms,
       e.workspace_id, w.rollout_repository_environments AS rollout
     FROM turns t
     JOIN sandboxes s ON s.lease_hash = ? AND s.engagement_id = t.engagement_id
     JOIN engagements e ON e.id = t.engagement_id
     JOIN workspaces w ON w.id = e.workspace_id
     WHERE t.token_hash = ?`,
    [hashCredential(lease), hashCredential(bearer)],
  )) as
    | {
        turn_id: string;
        engagement_id: string;
        expires_at_ms: number;
        sandbox_id: string;
        lease_expires_at_ms: number;
        workspace_id: string;
        rollout: number;
      }
    | undefined;
  if (!found) throw domainError("invalid_token", UNKNOWN_CREDENTIALS);
  if (!options.allowExpired && found.expires_at_ms <= nowMs)
    throw domainError(
      "invalid_token",
      "the turn token has expired; the orchestrator issues a new one per turn",
    );
  if (!options.allowExpired && found.lease_expires_at_ms <= nowMs)
    throw domainError("invalid_token", "the sandbox lease has expired");
  // A lease use is sandbox activity (DESIGN "Sandbox activity"): the idle-stop clock starts again.
  // Deferred, it commits with the request's own writes: one commit (one WAL flush) per request instead of two.
  if (!options.allowExpired && !options.deferActivity) await touchActivity(db, found.sandbox_id, nowMs);
  return {
    workspaceId: found.workspace_id,
    engagementId: found.engagement_id,
    turnId: found.turn_id,
    sandboxId: found.sandbox_id,
    rolloutEnabled: found.rollout === 1,
    ...(!options.allowExpired && options.deferActivity ? { activity: { atMs: nowMs, recorded: false } } : {}),
  };
}

export const ROLLOUT_DISABLED_REASON =
  "repository environments are not enabled for this workspace; secrets and sandbox.env are injected only when the sandbox is created";

/** The typed refusal every ops route gives a workspace without the repository-environments rollout. */
export function requireRollout(caller: Caller): void {
  if (!caller.rolloutEnabled) throw domainError("rollout_disabled", ROLLOUT_DISABLED_REASON);
}
