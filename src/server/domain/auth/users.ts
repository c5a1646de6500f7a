// Users (one per e-mail, across workspaces) and their membership: the role in a workspace, read on every request
// so that leaving a workspace ends a token's effect there at once.
import { createHash } from "node:crypto";
import type { Store } from "../../store/store.js";

export type Role = "owner" | "admin" | "member";

export interface User {
  id: string;
  email: string;
  name: string;
  codehostLogin: string | null;
}

export interface Membership {
  workspaceId: string;
  workspaceName: string;
  role: Role;
}

/** A stable id for a seeded user, so re-seeding and the tests can name it. */
export const userIdFor = (email: string): string =>
  `usr_${createHash("sha256").update(email.toLowerCase()).digest("hex").slice(0, 20)}`;

type UserRow = { id: string; email: string; name: string; codehost_login: string | null };
const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  name: row.name,
  codehostLogin: row.codehost_login,
});

export async function findUserByEmail(db: Store, email: string): Promise<User | undefined> {
  const row = (await db.get("SELECT id, email, name, codehost_login FROM users WHERE email = ?", [
    email.toLowerCase(),
  ])) as UserRow | undefined;
  return row && toUser(row);
}

export async function findUserById(db: Store, id: string): Promise<User | undefined> {
  const row = (await db.get("SELECT id, email, name, codehost_login FROM users WHERE id = ?", [id])) as
    | UserRow
    | undefined;
  return row && toUser(row);
}

/** Creates the user for `email` or updates the name and code-host login given; returns it. */
export async function upsertUser(
  db: Store,
  input: { email: string; name?: string | undefined; codehostLogin?: string | null | undefined },
  now: Date,
): Promise<User> {
  const email = input.email.toLowerCase();
  const existing = await findUserByEmail(db, email);
  if (!existing) {
    await db.run("INSERT INTO users (id, email, name, codehost_login, created_at) VALUES (?, ?, ?, ?, ?)", [
      userIdFor(email),
      email,
      input.name ?? email,
      input.codehostLogin ?? null,
      now.toISOString(),
    ]);
  } else {
    await db.run("UPDATE users SET name = ?, codehost_login = ? WHERE id = ?", [
      input.name ?? existing.name,
      input.codehostLogin === undefined ? existing.codehostLogin : input.codehostLogin,
      existing.id,
    ]);
  }
  return (await findUserByEmail(db, email))!;
}

export async function membershipOf(
  db: Store,
  user: User,
  workspaceId: string,
): Promise<Membership | undefined> {
  const row = (await db.get(
    `SELECT w.id, w.name, m.role FROM members m JOIN workspaces w ON w.id = m.workspace_id
     WHERE m.workspace_id = ? AND m.email = ?`,
    [workspaceId, user.email],
  )) as { id: string; name: string; role: Role } | undefined;
  return row && { workspaceId: row.id, workspaceName: row.name, role: row.role };
}

/** Every workspace the user belongs to, ordered by name (then id, so equal names keep one order). */
export async function membershipsOf(db: Store, user: User): Promise<Membership[]> {
  return (
    (await db.all(
      `SELECT w.id, w.name, m.role FROM members m JOIN workspaces w ON w.id = m.workspace_id
       WHERE m.email = ? ORDER BY w.name, w.id`,
      [user.email],
    )) as { id: string; name: string; role: Role }[]
  ).map((row) => ({ workspaceId: row.id, workspaceName: row.name, role: row.role }));
}
