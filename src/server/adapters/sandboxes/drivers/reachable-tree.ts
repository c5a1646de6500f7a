// Commands in a namespace box run as an unprivileged host user, and bubblewrap binds the image's folders as that
// user: every folder above them must let it pass. A checkout made in a private folder (a `mktemp -d` of 0700,
// as CI and `ci-fresh` make) keeps the image cache under it, out of that user's reach. Such a tree is staged once
// as hard links (a copy across file systems) under the driver's own searchable state folder.
import { createHash, randomUUID } from "node:crypto";
import { mkdir, readdir, rename, rm, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { execa } from "execa";

/** True when `uid` (with no supplementary groups but its own) may search every folder from / down to `path`. */
export async function canTraverse(path: string, uid: number): Promise<boolean> {
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    const info = await stat(dir);
    const mode = info.mode;
    const searchable =
      info.uid === uid
        ? (mode & 0o100) !== 0
        : info.gid === uid
          ? (mode & 0o010) !== 0
          : (mode & 0o001) !== 0;
    if (!searchable) return false;
    if (dir === dirname(dir)) return true;
  }
}

/**
 * `tree` itself when `uid` can reach it; otherwise its staged copy under `stagingDir` (made on first use, kept
 * for the next start, older stagings of the same `label` removed).
 */
export async function reachableTree(
  tree: string,
  uid: number,
  stagingDir: string,
  label: string,
): Promise<string> {
  if (await canTraverse(tree, uid)) return tree;
  const key = createHash("sha256").update(resolve(tree)).digest("hex").slice(0, 16);
  const staged = join(stagingDir, `${label}-${key}`);
  const mark = `${staged}.staged`;
  if (await exists(mark)) return staged;
  await mkdir(stagingDir, { recursive: true, mode: 0o711 });
  // Every process stages into a draft of its own and renames it into place: two drivers starting at once (two
  // test workers, two services) each used to remove the other's half-made copy and could leave a tree missing
  // files behind a mark, so that boxes then failed with "execvp baton: No such file or directory".
  const draft = `${staged}${DRAFT_INFIX}${process.pid}-${randomUUID()}`;
  // Hard links cost no space and keep every mode and owner; a tree on another file system is copied instead.
  await execa("cp", ["-al", tree, draft]).catch(async () => {
    await rm(draft, { recursive: true, force: true });
    await execa("cp", ["-a", tree, draft]);
  });
  await rename(draft, staged).catch(async (error: NodeJS.ErrnoException) => {
    // Another process renamed its complete copy into place first: use that one.
    await rm(draft, { recursive: true, force: true });
    if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
  });
  await writeFile(mark, "");
  await removeOlderStagings(stagingDir, label, staged);
  return staged;
}

const DRAFT_INFIX = ".draft-";

/** Earlier stagings of `label` (another tree, e.g. an older image) and their marks; never a draft in progress. */
async function removeOlderStagings(stagingDir: string, label: string, keep: string): Promise<void> {
  for (const name of await readdir(stagingDir)) {
    const path = join(stagingDir, name);
    if (!name.startsWith(`${label}-`) || name.includes(DRAFT_INFIX)) continue;
    if (path === keep || path === `${keep}.staged`) continue;
    await rm(path, { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
