// Classifies an ops request's credentials: the turn token (bearer) and the sandbox lease must both be known,
// unexpired and of the same engagement. Any failure is the same 401, so nothing reveals what exists.
// `allowExpired` is for reading an operation's state only: a sandbox whose lease or turn ran out mid-operation
// must still learn that its operation failed terminally (exit 6, with the reason), not just "invalid token".
import { HEADERS, WIRE_ERRORS } from "../../transport/wire.js";
import { HttpError, invalidToken } from "../http/http-error.js";
import type { Database } from "../store/sqlite.js";
import { statement } from "../store/statements.js";
import { hashCredential } from "./tokens.js";

export interface Caller {
  workspaceId: string;
  engagementId: string;
  turnId: string;
  sandboxId: string;
  rolloutEnabled: boolean;
}

const BEARER = /^Bearer ([\x21-\x7e]{1,512})$/;

export function authenticate(
  db: Database,
  headers: Headers,
  nowMs: number,
  options: { allowExpired?: boolean } = {},
): Caller {
  const bearer = BEARER.exec(headers.get(HEADERS.authorization) ?? "")?.[1];
  const lease = headers.get(HEADERS.sandboxLease);
  if (!bearer || !lease || lease.length > 512) throw invalidToken();
  const turn = statement(db, "SELECT id, engagement_id, expires_at_ms FROM turns WHERE token_hash = ?").get(
    hashCredential(bearer),
  ) as { id: string; engagement_id: string; expires_at_ms: number } | undefined;
  const sandbox = statement(
    db,
    "SELECT id, engagement_id, lease_expires_at_ms FROM sandboxes WHERE lease_hash = ?",
  ).get(hashCredential(lease)) as
    | { id: string; engagement_id: string; lease_expires_at_ms: number }
    | undefined;
  if (!turn || !sandbox || turn.engagement_id !== sandbox.engagement_id) throw invalidToken();
  if (!options.allowExpired && turn.expires_at_ms <= nowMs)
    throw invalidToken("the turn token has expired; the orchestrator issues a new one per turn");
  if (!options.allowExpired && sandbox.lease_expires_at_ms <= nowMs)
    throw invalidToken("the sandbox lease has expired");
  const engagement = statement(
    db,
    `SELECT e.workspace_id, w.rollout_repository_environments AS rollout
       FROM engagements e JOIN workspaces w ON w.id = e.workspace_id WHERE e.id = ?`,
  ).get(turn.engagement_id) as { workspace_id: string; rollout: number };
  return {
    workspaceId: engagement.workspace_id,
    engagementId: turn.engagement_id,
    turnId: turn.id,
    sandboxId: sandbox.id,
    rolloutEnabled: engagement.rollout === 1,
  };
}

export const ROLLOUT_DISABLED_REASON =
  "repository environments are not enabled for this workspace; secrets and sandbox.env are injected only when the sandbox is created";

/** The typed refusal every ops route gives a workspace without the repository-environments rollout. */
export function requireRollout(caller: Caller): void {
  if (!caller.rolloutEnabled) throw new HttpError(403, WIRE_ERRORS.rolloutDisabled, ROLLOUT_DISABLED_REASON);
}
