// GET /v1/me and the MCP tool `whoami`: the caller's user and their workspaces with role, ordered by name
// (reference section 4). One function, so both surfaces answer the same JSON.
import type { Store } from "../../store/store.js";
import { membershipsOf, type User } from "./users.js";

export interface WhoAmI {
  user: { id: string; codehostLogin: string; name: string };
  workspaces: { id: string; name: string; role: "owner" | "admin" | "member" }[];
}

export async function whoAmI(db: Store, user: User): Promise<WhoAmI> {
  return {
    user: { id: user.id, codehostLogin: user.codehostLogin ?? "", name: user.name },
    workspaces: (await membershipsOf(db, user)).map((m) => ({
      id: m.workspaceId,
      name: m.workspaceName,
      role: m.role,
    })),
  };
}
