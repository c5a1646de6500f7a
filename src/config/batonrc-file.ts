// Reads a checkout's `.batonrc.json` as a repository's own file: a user's file, not Baton's, so it may be anything
// the repository holds. Never through a symbolic link (a link to /etc/shadow would be read as the service's user),
// never a FIFO or device (it would block the reader), never more than the lint accepts.
import { join } from "node:path";
import { BatonError, InputError } from "../errors.js";
import { readFileSafeSync } from "../safefs/index.js";
import { BATONRC_FILE, BATONRC_MAX_BYTES } from "./batonrc.js";

/** The file's text, or null when the checkout has none; an InputError naming the file and the fix otherwise. */
export function readBatonrcFile(checkout: string): string | null {
  const path = join(checkout, BATONRC_FILE);
  try {
    return readFileSafeSync(null, path, { maxBytes: BATONRC_MAX_BYTES });
  } catch (error) {
    if (!(error instanceof BatonError)) throw error;
    const why =
      error.code === "unsafe_path"
        ? "must be a regular file in the checkout, not a symbolic link, FIFO or device; replace it with the JSON file itself"
        : error.code === "invalid_input"
          ? `is larger than ${BATONRC_MAX_BYTES} bytes; keep to the keys docs/testing.md lists`
          : "cannot be read; check its permissions";
    throw new InputError(`${BATONRC_FILE} in ${checkout} ${why}`, { path });
  }
}
