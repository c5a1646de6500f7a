// Personal access tokens (`btn_<secret>`) for the workspace routes: only sha256 hashes are stored. A caller who
// is not a member of the workspace gets 404, never 403, so nothing reveals that the workspace exists.
import { HEADERS, PERSONAL_TOKEN_PREFIX } from "../../../transport/wire.js";
import type { Store } from "../../store/store.js";
import { lookUpPersonalToken } from "../auth/personal-tokens-store.js";
import { domainError } from "../errors.js";

export const PERSONAL_TOKEN_PATTERN = /^btn_[A-Za-z0-9_-]{16,200}$/;
export const DEFAULT_TOKEN_TTL_DAYS = 365;

export type MemberRole = "owner" | "admin" | "member";
export interface Member {
  email: string;
  role: MemberRole;
  workspaceId: string;
  rolloutEnabled: boolean;
}

const BEARER = /^Bearer (\S{1,256})$/;

export async function authenticateMember(
  db: Store,
  headers: Headers,
  workspaceId: string,
  nowMs: number,
): Promise<Member> {
  const token = BEARER.exec(headers.get(HEADERS.authorization) ?? "")?.[1];
  if (!token?.startsWith(PERSONAL_TOKEN_PREFIX)) {
    throw domainError("invalid_token", "send a personal access token (btn_...) as Authorization: Bearer");
  }
  // The same lookup as the public API: a revoked token stops working here too.
  const looked = await lookUpPersonalToken(db, token, nowMs);
  if (looked.state !== "active")
    throw domainError("invalid_token", "the personal access token is unknown, expired or revoked");
  const row = { email: looked.found.user.email };
  const member = (await db.get(
    `SELECT m.role, w.rollout_repository_environments AS rollout FROM members m
       JOIN workspaces w ON w.id = m.workspace_id WHERE m.workspace_id = ? AND m.email = ?`,
    [workspaceId, row.email],
  )) as { role: MemberRole; rollout: number } | undefined;
  if (!member) throw domainError("not_found", "no such workspace");
  return { email: row.email, role: member.role, workspaceId, rolloutEnabled: member.rollout === 1 };
}

export function requireOwnerOrAdmin(member: Member): void {
  if (member.role !== "owner" && member.role !== "admin") {
    throw domainError("forbidden", "only workspace owners and admins can do this");
  }
}
