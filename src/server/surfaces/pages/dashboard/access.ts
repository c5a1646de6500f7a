// Who may see a workspace's pages: the signed-in member of it, with the API's rules (DESIGN, reference section 1):
// a workspace the user is not in answers 404 exactly like one that does not exist; owners and admins alone dismiss
// capability requests and supply secrets (403 saying who can).
import type { Context } from "hono";
import { type Membership, membershipOf, membershipsOf } from "../../../domain/auth/users.js";
import { HttpError } from "../../http/http-error.js";
import type { PagesDeps } from "../deps.js";
import type { PagesEnv } from "../env.js";

export interface WorkspaceAccess {
  membership: Membership;
  /** Every workspace of the user, for the switcher. */
  memberships: Membership[];
}

export async function requireWorkspace(
  deps: PagesDeps,
  c: Context<PagesEnv>,
  workspaceId: string,
  need: "member" | "admin" = "member",
): Promise<WorkspaceAccess> {
  const user = c.get("webUser");
  const membership = await membershipOf(deps.db, user, workspaceId);
  if (!membership)
    throw new HttpError(404, "not_found", "no such workspace; pick one of yours from the list");
  if (need === "admin" && membership.role === "member")
    throw new HttpError(
      403,
      "forbidden",
      `only an owner or admin of ${membership.workspaceName} can do this; ask one of them`,
    );
  return { membership, memberships: await membershipsOf(deps.db, user) };
}
