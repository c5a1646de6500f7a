// Reads, saves and deletes the client's config file through src/safefs: the folder is 0700 and the file 0600,
// written atomically (a reader sees the old file or the new one), never through a symbolic link.
import { homedir } from "node:os";
import { ConfigError } from "../errors.js";
import {
  ensureRootParents,
  readFileSafeSync,
  removeFileUnder,
  writeFileAtomicSync,
} from "../safefs/index.js";
import { type ConfigLocation, resolveConfigLocation } from "./config-path.js";
import { renderConfig, type SavedConfig, SavedConfigSchema } from "./config-schema.js";

/** Far more than a config file ever holds; anything larger was not written by baton. */
const MAX_CONFIG_BYTES = 64 * 1024;

export function locateConfig(env: NodeJS.ProcessEnv): ConfigLocation {
  return resolveConfigLocation({ env, platform: process.platform, homedir: homedir() });
}

/** The saved sign-in, or null when there is none. A file that is not a config file is an error naming it. */
export function readSavedConfig(location: ConfigLocation): SavedConfig | null {
  const text = readFileSafeSync(location.folder, location.file, { maxBytes: MAX_CONFIG_BYTES });
  if (text === null) return null;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw corrupt(location, "it is not JSON");
  }
  const parsed = SavedConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw corrupt(location, `${issue?.path.join(".") || "the file"}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

export function saveConfig(location: ConfigLocation, config: SavedConfig): void {
  ensureRootParents(location.folder);
  writeFileAtomicSync(location.folder, location.file, renderConfig(config), { mode: 0o600 });
}

export function deleteConfig(location: ConfigLocation): void {
  removeFileUnder(location.folder, location.file);
}

function corrupt(location: ConfigLocation, why: string): ConfigError {
  return new ConfigError(
    `${location.file} is not a baton config file (${why}); remove it (rm ${location.file}) and run \`baton login\``,
    { path: location.file },
  );
}
