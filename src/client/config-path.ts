// Where the client keeps its sign-in (reference rule 8, DESIGN names): ~/.config/baton/config.json,
// $XDG_CONFIG_HOME/baton/config.json when set, %APPDATA%\baton\config.json on Windows. Pure.
import { posix, win32 } from "node:path";

export const CONFIG_FOLDER_NAME = "baton";
export const CONFIG_FILE_NAME = "config.json";

export interface ConfigLocation {
  /** The folder baton owns (0700): safefs's root for the file. */
  folder: string;
  file: string;
}

export function resolveConfigLocation(input: {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  homedir: string;
}): ConfigLocation {
  if (input.platform === "win32") {
    const base = input.env.APPDATA || win32.join(input.homedir, "AppData", "Roaming");
    const folder = win32.join(base, CONFIG_FOLDER_NAME);
    return { folder, file: win32.join(folder, CONFIG_FILE_NAME) };
  }
  // The XDG spec: a relative XDG_CONFIG_HOME is invalid and ignored.
  const xdg = input.env.XDG_CONFIG_HOME;
  const base = xdg && posix.isAbsolute(xdg) ? xdg : posix.join(input.homedir, ".config");
  const folder = posix.join(base, CONFIG_FOLDER_NAME);
  return { folder, file: posix.join(folder, CONFIG_FILE_NAME) };
}
