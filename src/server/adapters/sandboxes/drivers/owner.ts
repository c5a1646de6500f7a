// Who made a sandbox resource: this host and process id, so a driver starting later can remove what a killed
// service left behind (its boxes cannot work without the forwarders that died with it) and nothing else.
import { hostname } from "node:os";

export const OWNER_LABEL = "baton.sandbox.owner";

export function ownerStamp(): string {
  return `${hostname()}:${process.pid}`;
}

/** True when `stamp` names a process of this host that no longer runs. */
export function isOrphaned(stamp: string | undefined): boolean {
  if (!stamp) return false;
  const at = stamp.lastIndexOf(":");
  const host = stamp.slice(0, at);
  const pid = Number(stamp.slice(at + 1));
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
