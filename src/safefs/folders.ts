// Folder checks for everything Baton keeps under ~/.baton: the folder itself and every folder between it and a
// file must be a real folder (never a symbolic link) owned by this user. Synchronous on purpose: the startup
// runner writes its evidence from signal handlers, and one implementation serves it and the CLI alike.
import { chmodSync, lstatSync, mkdirSync, type Stats } from "node:fs";
import { dirname, isAbsolute, join, relative, sep } from "node:path";
import { BatonError, ConfigError, UnsafePathError } from "../errors.js";

/** The folders from `root` (exclusive) down to `dir` (inclusive); refuses a `dir` outside `root`. */
export function foldersBetween(root: string, dir: string): string[] {
  const rel = relative(root, dir);
  if (rel === "") return [];
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new UnsafePathError(`${dir} is outside ${root}; baton keeps its files under ${root}`, {
      path: dir,
    });
  }
  const out: string[] = [];
  let current = root;
  for (const segment of rel.split(sep)) {
    current = join(current, segment);
    out.push(current);
  }
  return out;
}

/** lstat that answers undefined for a missing path. */
export function lstatIfAny(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw new BatonError("internal", `could not inspect ${path} (${code ?? "unknown error"})`, {
      path,
      cause: error,
    });
  }
}

/** Refuses a folder that is a symbolic link, is not a folder, or is owned by another user. */
export function assertRealFolder(path: string, stat: Stats): void {
  if (stat.isSymbolicLink()) {
    throw new UnsafePathError(
      `${path} is a symbolic link; baton writes and reads only real folders under ~/.baton. Remove the link (rm ${path}) and run the command again`,
      { path },
    );
  }
  if (!stat.isDirectory()) {
    throw new UnsafePathError(`${path} is not a folder; remove it and run the command again`, { path });
  }
  const uid = process.geteuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new UnsafePathError(
      `${path} is owned by another user (uid ${stat.uid}); baton will not use it. Remove it and run the command again`,
      { path },
    );
  }
}

/**
 * Creates the root (0700) when missing and keeps it 0700; refuses a link, a non-folder or a foreign owner.
 * The root's parent (HOME) must exist: it is never created.
 */
export function ensureRoot(root: string): void {
  try {
    mkdirSync(root, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new ConfigError(
        `HOME folder ${dirname(root)} does not exist, so ${root} cannot be made; set HOME to an existing folder`,
        { cause: error },
      );
    }
    if (code !== "EEXIST") {
      throw new BatonError("internal", `could not create ${root} (${code})`, { path: root, cause: error });
    }
  }
  const stat = lstatSync(root);
  assertRealFolder(root, stat);
  if ((stat.mode & 0o777) !== 0o700) chmodSync(root, 0o700);
}

/**
 * For a root that is not directly under HOME (the client's ~/.config/baton): makes the missing folders above it
 * (0700, as the XDG spec asks of a new ~/.config), leaving existing ones as they are. ensureRoot then makes and
 * checks the root itself.
 */
export function ensureRootParents(root: string): void {
  try {
    mkdirSync(dirname(root), { recursive: true, mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new BatonError("internal", `could not create ${dirname(root)} (${code ?? "unknown error"})`, {
      path: dirname(root),
      cause: error,
    });
  }
}

/** Makes `dir` and every missing folder above it up to `root` (0700), checking each existing one. */
export function ensureFolderUnder(root: string, dir: string): void {
  const folders = foldersBetween(root, dir);
  ensureRoot(root);
  for (const folder of folders) {
    let stat = lstatIfAny(folder);
    if (stat === undefined) {
      try {
        mkdirSync(folder, { mode: 0o700 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
          throw new BatonError("internal", `could not create ${folder}`, { path: folder, cause: error });
        }
      }
      stat = lstatSync(folder); // something else may have made it meanwhile: check whatever is there now
    }
    assertRealFolder(folder, stat);
  }
}

/**
 * Checks the root and the existing folders down to `dir` without creating anything. Answers false when some
 * of them is missing (nothing below it can exist yet), true when `dir` exists and every folder is sound.
 */
export function inspectFolderUnder(root: string, dir: string): boolean {
  const folders = foldersBetween(root, dir);
  for (const folder of [root, ...folders]) {
    const stat = lstatIfAny(folder);
    if (stat === undefined) return false;
    assertRealFolder(folder, stat);
  }
  return true;
}
