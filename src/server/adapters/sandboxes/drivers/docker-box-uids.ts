// Host uids for Docker boxes, one per box from --sandbox-uids (as namespace boxes have). The engine is the record:
// each box carries its uid in a label, so a restarted service, and every other service on the same engine, sees
// which uids are taken, and a removed box's uid is free again with nothing to update.
import { setTimeout as delay } from "node:timers/promises";
import type Docker from "dockerode";
import { createUidAllocator, type UidRange } from "./box-uids.js";

export const UID_LABEL = "baton.sandbox.uid";

/** A box made at the same moment by another service on the engine may take the same uid: tries this many times. */
const ATTEMPTS = 5;

export function createDockerUidPool(docker: Docker, range: UidRange) {
  /** Uids handed out here whose box the engine does not list yet. */
  const pending = new Set<number>();

  async function boxesWith(uid?: number): Promise<Docker.ContainerInfo[]> {
    return docker.listContainers({
      all: true,
      filters: { label: [uid === undefined ? UID_LABEL : `${UID_LABEL}=${uid}`] },
    });
  }

  return {
    /**
     * Makes a box with the lowest uid of the range no box on the engine has (`make` puts UID_LABEL on it). When
     * another box turns out to have the same uid (made at the same moment by another service), this one is removed
     * and made again with another.
     */
    async withUid<T extends { id: string }>(
      make: (uid: number) => Promise<T>,
      remove: (made: T) => Promise<void>,
    ): Promise<{ made: T; uid: number }> {
      const passed: number[] = [];
      for (let attempt = 1; ; attempt++) {
        const taken = (await boxesWith()).map((box) => Number(box.Labels?.[UID_LABEL]));
        const uid = createUidAllocator(range, [...taken, ...pending, ...passed]).allocate();
        pending.add(uid);
        let made: T;
        try {
          made = await make(uid);
        } finally {
          pending.delete(uid);
        }
        const sharing = (await boxesWith(uid)).filter((box) => box.Id !== made.id);
        if (sharing.length === 0) return { made, uid };
        await remove(made);
        if (attempt === ATTEMPTS)
          throw new Error(`no uid of ${range.first}-${range.last} stayed this box's own`);
        passed.push(uid);
        // Both services may have seen the clash and stepped back: a random pause keeps them apart next time.
        await delay(Math.floor(Math.random() * 200), undefined);
      }
    },
  };
}
