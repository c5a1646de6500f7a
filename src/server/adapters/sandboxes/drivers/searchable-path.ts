// Namespace boxes run as host uids of their own (--sandbox-uids), so every folder above the driver's state folder
// must let other users pass (search bit for "others"). A private TMPDIR (mode 0700) breaks that, and bubblewrap
// then fails deep inside with "Can't find source path … Permission denied"; this finds the folder to blame first.
import { stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";

const SEARCH_BY_OTHERS = 0o001;

/** The nearest existing ancestor of `path` (or `path` itself) that other users cannot pass through, if any. */
export async function findUnsearchableFolder(path: string): Promise<string | undefined> {
  let folder = resolve(path);
  for (;;) {
    const mode = await stat(folder).then(
      (s) => s.mode,
      () => undefined,
    );
    if (mode !== undefined && (mode & SEARCH_BY_OTHERS) === 0) return folder;
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}
