// Who acted on the platform, as a member of the workspace: the code-host login a user linked, or the tracker
// identity a member bound. Webhook-started work is done as that member; anyone else is refused.

import type { Store } from "../../store/store.js";
import type { User } from "../auth/users.js";

type Row = { id: string; email: string; name: string; codehost_login: string | null };
const toUser = (row: Row): User => ({
  id: row.id,
  email: row.email,
  name: row.name,
  codehostLogin: row.codehost_login,
});

/** The workspace member whose linked code-host login is `login` (logins are case-insensitive). */
export async function memberByCodehostLogin(
  db: Store,
  workspaceId: string,
  login: string,
): Promise<User | undefined> {
  const row = (await db.get(
    `SELECT u.id, u.email, u.name, u.codehost_login FROM users u JOIN members m ON m.email = u.email
     WHERE m.workspace_id = ? AND lower(u.codehost_login) = lower(?)`,
    [workspaceId, login],
  )) as Row | undefined;
  return row && toUser(row);
}

/** The workspace member whose tracker identity, bound to this workspace's tracker, is `identity`. */
export async function memberByTrackerIdentity(
  db: Store,
  workspaceId: string,
  identity: string,
): Promise<User | undefined> {
  const row = (await db.get(
    `SELECT u.id, u.email, u.name, u.codehost_login FROM users u JOIN members m ON m.email = u.email
     WHERE m.workspace_id = ? AND m.tracker_identity = ? AND m.tracker_identity_bound = 1`,
    [workspaceId, identity],
  )) as Row | undefined;
  return row && toUser(row);
}

/** The hidden marker every comment the service posts carries, so the webhook of its own comment is ignored. */
export const postMarker = (id: string): string => `<!-- baton:${id} -->`;
export const hasPostMarker = (body: string | null | undefined): boolean =>
  /<!-- baton:[^\s>]+ -->/.test(body ?? "");
