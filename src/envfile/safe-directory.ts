// Folder checks shared by the atomic writer and ~/.baton creation.
import type { Stats } from "node:fs";
import { chmod, lstat, mkdir } from "node:fs/promises";
import type { SandboxPaths } from "../config/sandbox.js";
import { BatonError, ConfigError, UnsafePathError } from "../errors.js";

/** Refuses a folder that is a symbolic link, is not a folder, or is owned by another user. */
export async function assertOwnedDirectory(dir: string): Promise<Stats> {
  let stat: Stats;
  try {
    stat = await lstat(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new BatonError("not_found", `folder ${dir} does not exist`, { path: dir, cause: error });
    }
    throw new BatonError("internal", `could not inspect ${dir} (${(error as NodeJS.ErrnoException).code})`, {
      path: dir,
      cause: error,
    });
  }
  if (stat.isSymbolicLink()) {
    throw new UnsafePathError(`${dir} is a symbolic link; baton writes only into a real folder`, {
      path: dir,
    });
  }
  if (!stat.isDirectory()) {
    throw new UnsafePathError(`${dir} is not a folder`, { path: dir });
  }
  const uid = process.geteuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    throw new UnsafePathError(
      `${dir} is owned by another user (uid ${stat.uid}); baton will not write into it`,
      {
        path: dir,
      },
    );
  }
  return stat;
}

/** Creates `~/.baton` (0700) when missing; tightens it to 0700; refuses a link or a foreign owner. */
export async function ensureBatonDir(paths: Pick<SandboxPaths, "home" | "batonDir">): Promise<void> {
  try {
    await mkdir(paths.batonDir, { mode: 0o700 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new ConfigError(`HOME folder ${paths.home} does not exist; set HOME to an existing folder`, {
        cause: error,
      });
    }
    if (code !== "EEXIST") {
      throw new BatonError("internal", `could not create ${paths.batonDir} (${code})`, {
        path: paths.batonDir,
        cause: error,
      });
    }
  }
  const stat = await assertOwnedDirectory(paths.batonDir);
  if ((stat.mode & 0o777) !== 0o700) await chmod(paths.batonDir, 0o700);
}
