// Reference rule 8: ~/.config/baton/config.json, $XDG_CONFIG_HOME/baton when set, %APPDATA%\baton on Windows.
import { describe, expect, it } from "vitest";
import { resolveConfigLocation } from "../../../src/client/config-path.js";

describe("where the config file is", () => {
  it.each([
    ["~/.config/baton by default", "linux", {}, "/home/ann/.config/baton/config.json"],
    ["$XDG_CONFIG_HOME/baton when set", "linux", { XDG_CONFIG_HOME: "/x/cfg" }, "/x/cfg/baton/config.json"],
    [
      "a relative XDG_CONFIG_HOME is ignored (XDG spec)",
      "linux",
      { XDG_CONFIG_HOME: "cfg" },
      "/home/ann/.config/baton/config.json",
    ],
    [
      "an empty XDG_CONFIG_HOME is ignored",
      "darwin",
      { XDG_CONFIG_HOME: "" },
      "/home/ann/.config/baton/config.json",
    ],
    [
      "%APPDATA%\\baton on Windows",
      "win32",
      { APPDATA: "C:\\Users\\ann\\AppData\\Roaming" },
      "C:\\Users\\ann\\AppData\\Roaming\\baton\\config.json",
    ],
    [
      "Windows ignores XDG_CONFIG_HOME",
      "win32",
      { APPDATA: "D:\\a", XDG_CONFIG_HOME: "/x" },
      "D:\\a\\baton\\config.json",
    ],
    [
      "Windows without APPDATA: the roaming folder under the home",
      "win32",
      {},
      "C:\\Users\\ann\\AppData\\Roaming\\baton\\config.json",
    ],
  ] as const)("%s", (_what, platform, env, file) => {
    const homedir = platform === "win32" ? "C:\\Users\\ann" : "/home/ann";
    const location = resolveConfigLocation({ env: { ...env }, platform, homedir });
    expect(location.file).toBe(file);
    expect(file.startsWith(location.folder)).toBe(true);
  });
});
