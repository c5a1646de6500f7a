// The operator's key file: 32 random bytes, base64, created at first start with mode 0600 (never overwritten).
// A file others can read, or one that does not hold a key, stops the service with a message saying what to fix.
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { link, lstat, open, readFile, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { ConfigError } from "../../../errors.js";
import { createSecretBox, SECRET_KEY_BYTES, type SecretBox } from "../../primitives/secret-box.js";
import { makeFolders } from "../../store/open-store.js";

export async function loadOrCreateSecretKey(file: string): Promise<{ box: SecretBox; created: boolean }> {
  const created = (await fileExists(file)) ? false : await createKeyFile(file);
  const info = await lstat(file);
  if (!info.isFile()) throw new ConfigError(`the secret key file ${file} is not a regular file`);
  if ((info.mode & 0o077) !== 0) {
    throw new ConfigError(`the secret key file ${file} is readable by others; run chmod 600 ${file}`);
  }
  const key = Buffer.from((await readFile(file, "utf8")).trim(), "base64");
  if (key.length !== SECRET_KEY_BYTES) {
    throw new ConfigError(
      `the secret key file ${file} does not hold a ${SECRET_KEY_BYTES}-byte base64 key; restore it from backup`,
    );
  }
  return { box: createSecretBox(key), created };
}

async function fileExists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new ConfigError(`cannot read the secret key file ${file}; check --secret-key-file`, {
      cause: error,
    });
  }
}

// Written whole to a file of its own, then linked into place: a link never replaces a file, so of several
// instances started together on one key file exactly one creates it, and none reads it before its key is in.
// Returns false when another instance linked its key first.
async function createKeyFile(file: string): Promise<boolean> {
  const draft = `${file}.${process.pid}.${randomBytes(4).toString("hex")}.new`;
  try {
    makeFolders(dirname(file));
    const handle = await open(draft, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await handle.writeFile(`${randomBytes(SECRET_KEY_BYTES).toString("base64")}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await link(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new ConfigError(`cannot create the secret key file ${file}; check --secret-key-file`, {
      cause: error,
    });
  } finally {
    await rm(draft, { force: true });
  }
}
