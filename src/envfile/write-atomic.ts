// Atomic, no-follow file writes for generated files under ~/.baton. The I/O edge of envfile.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { lstat, open, readdir, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { BatonError, isBatonError, UnsafePathError } from "../errors.js";
import { assertOwnedDirectory } from "./safe-directory.js";

const TEMP_NAME = /^\.(.+)\.(\d+)-[0-9a-f]{12}\.tmp$/;

/**
 * Writes `content` so that a reader only ever sees the previous file or the complete new one: a temporary
 * file in the same folder (O_EXCL | O_NOFOLLOW), fsync, rename over the target, fsync of the folder.
 * Refuses a target that is a symbolic link or not a regular file, and a folder that is a symbolic link or
 * owned by another user. rename() replaces a link rather than following it, so a link swapped in after the
 * check still cannot redirect the write. On any failure the previous file is left as it was.
 */
export async function writeFileAtomic(
  path: string,
  content: string,
  options: { mode?: number } = {},
): Promise<void> {
  const mode = options.mode ?? 0o600;
  const dir = dirname(path);
  await assertOwnedDirectory(dir);
  await assertReplaceableFile(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(
      temp,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
      mode,
    );
    try {
      await handle.writeFile(content, "utf8");
      await handle.chmod(mode); // the umask may have narrowed or (with a 0 umask) not narrowed it
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw wrapWriteError(error, path);
  }
  await syncDirectory(dir, path);
  await removeStaleTemps(dir, basename(path));
}

async function assertReplaceableFile(path: string): Promise<void> {
  const stat = await lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw wrapWriteError(error, path);
  });
  if (stat === undefined) return;
  if (stat.isSymbolicLink()) {
    throw new UnsafePathError(`${path} is a symbolic link; remove it and run the command again`, { path });
  }
  if (!stat.isFile()) {
    throw new UnsafePathError(
      `${path} exists and is not a regular file; remove it and run the command again`,
      {
        path,
      },
    );
  }
}

async function syncDirectory(dir: string, path: string): Promise<void> {
  try {
    const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw wrapWriteError(error, path);
  }
}

/** Temp files left by writers that were killed mid-write; removed only when their process is gone. */
async function removeStaleTemps(dir: string, base: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const match = TEMP_NAME.exec(name);
    if (!match || match[1] !== base || isProcessAlive(Number(match[2]))) continue;
    await unlink(join(dir, name)).catch(() => undefined);
  }
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function wrapWriteError(error: unknown, path: string): BatonError {
  if (isBatonError(error)) return error;
  const code = (error as NodeJS.ErrnoException).code ?? "unknown error";
  if (code === "ELOOP") {
    return new UnsafePathError(`${path}: refusing to follow a symbolic link`, { path, cause: error });
  }
  return new BatonError("internal", `could not write ${path} (${code}); the previous file is unchanged`, {
    path,
    cause: error,
  });
}
