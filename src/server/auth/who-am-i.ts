// GET /v1/me and the MCP tool `whoami`: the caller's user and their workspaces with role, ordered by name
// (reference section 4). One function, so both surfaces answer the same JSON.
import type { Database } from "../store/sqlite.js";
import { membershipsOf, type User } from "./users.js";

export interface WhoAmI {
  user: { id: string; codehostLogin: string; name: string };
  workspaces: { id: string; name: string; role: "owner" | "admin" | "member" }[];
}

export function whoAmI(db: Database, user: User): WhoAmI {
  return {
    user: { id: user.id, codehostLogin: user.codehostLogin ?? "", name: user.name },
    workspaces: membershipsOf(db, user).map((m) => ({
      id: m.workspaceId,
      name: m.workspaceName,
      role: m.role,
    })),
  };
}
