// Users (one per e-mail, across workspaces) and their membership: the role in a workspace, read on every request
// so that leaving a workspace ends a token's effect there at once.
import { createHash } from "node:crypto";
import type { Database } from "../store/sqlite.js";
import { statement } from "../store/statements.js";

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

export function findUserByEmail(db: Database, email: string): User | undefined {
  const row = statement(db, "SELECT id, email, name, codehost_login FROM users WHERE email = ?").get(
    email.toLowerCase(),
  ) as UserRow | undefined;
  return row && toUser(row);
}

export function findUserById(db: Database, id: string): User | undefined {
  const row = statement(db, "SELECT id, email, name, codehost_login FROM users WHERE id = ?").get(id) as
    | UserRow
    | undefined;
  return row && toUser(row);
}

/** Creates the user for `email` or updates the name and code-host login given; returns it. */
export function upsertUser(
  db: Database,
  input: { email: string; name?: string | undefined; codehostLogin?: string | null | undefined },
  now: Date,
): User {
  const email = input.email.toLowerCase();
  const existing = findUserByEmail(db, email);
  if (!existing) {
    statement(
      db,
      "INSERT INTO users (id, email, name, codehost_login, created_at) VALUES (?, ?, ?, ?, ?)",
    ).run(userIdFor(email), email, input.name ?? email, input.codehostLogin ?? null, now.toISOString());
  } else {
    statement(db, "UPDATE users SET name = ?, codehost_login = ? WHERE id = ?").run(
      input.name ?? existing.name,
      input.codehostLogin === undefined ? existing.codehostLogin : input.codehostLogin,
      existing.id,
    );
  }
  return findUserByEmail(db, email)!;
}

export function membershipOf(db: Database, user: User, workspaceId: string): Membership | undefined {
  const row = statement(
    db,
    `SELECT w.id, w.name, m.role FROM members m JOIN workspaces w ON w.id = m.workspace_id
     WHERE m.workspace_id = ? AND m.email = ?`,
  ).get(workspaceId, user.email) as { id: string; name: string; role: Role } | undefined;
  return row && { workspaceId: row.id, workspaceName: row.name, role: row.role };
}

/** Every workspace the user belongs to, ordered by name (then id, so equal names keep one order). */
export function membershipsOf(db: Database, user: User): Membership[] {
  return (
    statement(
      db,
      `SELECT w.id, w.name, m.role FROM members m JOIN workspaces w ON w.id = m.workspace_id
       WHERE m.email = ? ORDER BY w.name, w.id`,
    ).all(user.email) as { id: string; name: string; role: Role }[]
  ).map((row) => ({ workspaceId: row.id, workspaceName: row.name, role: row.role }));
}
