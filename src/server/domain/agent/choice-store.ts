// A workspace's chosen coding agent in the store (workspaces.agent_id, migration 95): a catalog id, or null for the
// service's default.
import type { Store } from "../../store/store.js";

/** The workspace's chosen agent id (null: the service default); undefined when there is no such workspace. */
export async function readWorkspaceAgent(db: Store, workspaceId: string): Promise<string | null | undefined> {
  const row = await db.get<{ agent_id: string | null }>("SELECT agent_id FROM workspaces WHERE id = ?", [
    workspaceId,
  ]);
  return row === undefined ? undefined : row.agent_id;
}

export async function writeWorkspaceAgent(
  db: Store,
  workspaceId: string,
  agentId: string | null,
): Promise<void> {
  await db.run("UPDATE workspaces SET agent_id = ? WHERE id = ?", [agentId, workspaceId]);
}
