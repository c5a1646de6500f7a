// Commands in a namespace box run as an unprivileged host user, and bubblewrap binds the image's folders as that
// user: every folder above them must let it pass. A checkout made in a private folder (a `mktemp -d` of 0700,
// as CI and `ci-fresh` make) keeps the image cache under it, out of that user's reach. Such a tree is staged once
// as hard links (a copy across file systems) under the driver's own searchable state folder.
import { createHash } from "node:crypto";
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
  for (const name of await readdir(stagingDir)) {
    if (name.startsWith(`${label}-`)) await rm(join(stagingDir, name), { recursive: true, force: true });
  }
  const draft = `${staged}.draft`;
  // Hard links cost no space and keep every mode and owner; a tree on another file system is copied instead.
  await execa("cp", ["-al", tree, draft]).catch(async () => {
    await rm(draft, { recursive: true, force: true });
    await execa("cp", ["-a", tree, draft]);
  });
  await rename(draft, staged);
  await writeFile(mark, "");
  return staged;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
