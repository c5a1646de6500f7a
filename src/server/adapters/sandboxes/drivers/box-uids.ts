// Host uids for boxes (either driver): each box runs as its own uid from the operator's range (`--sandbox-uids`, an
// /etc/subuid-style `first-last`), which no account or group of the machine uses, so no box shares a user with
// another box or with a real person. Pure: the account files' text is passed in.
import { UsageError } from "../../../../errors.js";

export const SANDBOX_UIDS_FLAG = "--sandbox-uids";
/** Above the usual /etc/subuid allocations (100000-165535 for the first user) and below 2^31. */
export const DEFAULT_SANDBOX_UIDS = "200000-265535";

export interface UidRange {
  first: number;
  last: number;
}

export function parseUidRange(text: string): UidRange {
  const match = /^(\d{1,10})-(\d{1,10})$/.exec(text.trim());
  const first = Number(match?.[1]);
  const last = Number(match?.[2]);
  if (!match || first < 1000 || last < first || last > 2 ** 31 - 2)
    throw new UsageError(
      `${SANDBOX_UIDS_FLAG} ${text} must be first-last host uids, 1000 or above, e.g. ${DEFAULT_SANDBOX_UIDS}`,
      { path: SANDBOX_UIDS_FLAG },
    );
  return { first, last };
}

/** Names of accounts (/etc/passwd) and groups (/etc/group) whose id lies in `range`. */
export function accountsInRange(range: UidRange, files: { passwd: string; group: string }): string[] {
  const names: string[] = [];
  for (const text of [files.passwd, files.group]) {
    for (const line of text.split("\n")) {
      const fields = line.split(":");
      const id = Number(fields[2]);
      if (fields.length >= 3 && fields[2] !== "" && id >= range.first && id <= range.last)
        names.push(fields[0]!);
    }
  }
  return [...new Set(names)];
}

/** Refuses a range that overlaps an existing account or group (exit 1, naming the flag). */
export function checkUidRange(range: UidRange, files: { passwd: string; group: string }): void {
  const taken = accountsInRange(range, files);
  if (taken.length > 0)
    throw new UsageError(
      `${SANDBOX_UIDS_FLAG} ${range.first}-${range.last} overlaps existing accounts (${taken.join(", ")}); pick a range no account or group uses`,
      { path: SANDBOX_UIDS_FLAG },
    );
}

/** Hands out the lowest free uid of the range; `inUse` holds those of boxes that exist already. */
export function createUidAllocator(range: UidRange, inUse: Iterable<number> = []) {
  const taken = new Set(inUse);
  return {
    allocate(): number {
      for (let uid = range.first; uid <= range.last; uid++) {
        if (!taken.has(uid)) {
          taken.add(uid);
          return uid;
        }
      }
      throw new Error(
        `every uid of ${SANDBOX_UIDS_FLAG} ${range.first}-${range.last} has a box; remove boxes or widen the range`,
      );
    },
    release(uid: number): void {
      taken.delete(uid);
    },
  };
}
