// How the demo removes the sandbox boxes it made, whatever stopped it. A stopped `baton serve` keeps its boxes
// by design (a deploy must not end them), so a Ctrl-C that reached the service before the demo could delete them
// through the admin API left a Docker box running (issue 37 A4). First the admin API while the service runs;
// then, once it stopped, `baton admin prune-sandboxes` on its store removes whatever it kept, with the network.
import { spawnSync } from "node:child_process";
import { bin } from "./commands.mjs";

const alive = (child) => child !== undefined && child.exitCode === null && child.signalCode === null;

/** DELETE each live sandbox through the running service's admin API (nothing when it is gone). */
export async function deleteThroughService({ serve, adminUrl, adminToken }) {
  if (!adminUrl || !alive(serve)) return;
  const headers = { "baton-admin-token": adminToken };
  try {
    const answer = await fetch(`${adminUrl}/admin/v1/sandboxes`, { headers });
    if (!answer.ok) return;
    for (const box of (await answer.json()).sandboxes ?? []) {
      if (box.state === "deleted") continue;
      const owner = new URLSearchParams({ workspaceId: box.workspaceId, engagementId: box.engagementId });
      await fetch(`${adminUrl}/admin/v1/sandboxes/${box.sandboxId}?${owner}`, { method: "DELETE", headers });
    }
  } catch {}
}

/**
 * After the service stopped: removes the boxes it kept on its store's state folder. Returns what
 * `baton admin prune-sandboxes --json` removed (an empty list when the admin API had removed them all).
 */
export function pruneStoppedService({ driver, db, env = process.env }) {
  const run = spawnSync(
    process.execPath,
    [bin, "admin", "prune-sandboxes", "--sandbox-driver", driver, "--db", db, "--json"],
    { encoding: "utf8", env },
  );
  if (run.status !== 0) {
    console.error(`demo: could not remove the sandbox boxes: ${(run.stderr ?? "").trim()}`);
    return [];
  }
  return JSON.parse(run.stdout).removed;
}
