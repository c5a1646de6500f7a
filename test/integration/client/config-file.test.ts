// The client's config file on a real disk (reference rule 8): readable only by the user, written atomically
// through safefs, never through a symbolic link, a corrupt file an error naming it and `baton login`.
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deleteConfig, locateConfig, readSavedConfig, saveConfig } from "../../../src/client/config.js";
import type { SavedConfig } from "../../../src/client/config-schema.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "client-config-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SAVED: SavedConfig = {
  apiUrl: "https://baton.acme.test",
  token: "btn_canary-config-0000000000000000",
  kind: "personal",
  workspace: "ws_acme",
  signedInAt: "2026-11-01T00:00:00.000Z",
  lastUsedAt: "2026-11-01T00:00:00.000Z",
  expiresAt: null,
  refreshToken: null,
  clientId: null,
};

describe("the config file", () => {
  it("is 0600 in a 0700 folder, the missing folders above made too (XDG_CONFIG_HOME that does not exist yet)", () => {
    const location = locateConfig({ XDG_CONFIG_HOME: join(dir, "not", "yet") });
    saveConfig(location, SAVED);
    expect(location.file).toBe(join(dir, "not", "yet", "baton", "config.json"));
    expect(statSync(location.file).mode & 0o777).toBe(0o600);
    expect(statSync(location.folder).mode & 0o777).toBe(0o700);
    expect(readSavedConfig(location)).toEqual(SAVED);
  });

  it("a folder that exists with looser modes is made 0700", () => {
    mkdirSync(join(dir, "baton"), { mode: 0o755 });
    const location = locateConfig({ XDG_CONFIG_HOME: dir });
    saveConfig(location, SAVED);
    expect(statSync(location.folder).mode & 0o777).toBe(0o700);
  });

  it("is replaced atomically: a new file (rename), no temporary left beside it", () => {
    const location = locateConfig({ XDG_CONFIG_HOME: dir });
    saveConfig(location, SAVED);
    const before = statSync(location.file).ino;
    saveConfig(location, { ...SAVED, workspace: "ws_beta" });
    expect(statSync(location.file).ino).not.toBe(before);
    expect(readdirSync(location.folder)).toEqual(["config.json"]);
    expect(readSavedConfig(location)?.workspace).toBe("ws_beta");
  });

  it("is never written through a symbolic link", () => {
    const location = locateConfig({ XDG_CONFIG_HOME: dir });
    mkdirSync(location.folder, { mode: 0o700 });
    const elsewhere = join(dir, "elsewhere.json");
    writeFileSync(elsewhere, "{}");
    symlinkSync(elsewhere, location.file);
    expect(() => saveConfig(location, SAVED)).toThrow("symbolic link");
    expect(readFileSync(elsewhere, "utf8")).toBe("{}");
    expect(() => readSavedConfig(location)).toThrow("symbolic link");
  });

  it("a missing file reads as not signed in", () => {
    expect(readSavedConfig(locateConfig({ XDG_CONFIG_HOME: dir }))).toBeNull();
  });

  it.each([
    ["not JSON", "{nope", "not JSON"],
    ["a token missing", JSON.stringify({ ...SAVED, token: undefined }), "token"],
    ["an unknown kind", JSON.stringify({ ...SAVED, kind: "cookie" }), "kind"],
    ["a date that is not one", JSON.stringify({ ...SAVED, lastUsedAt: "yesterday" }), "lastUsedAt"],
  ])("a corrupt file (%s) is an error naming the file and baton login", (_what, text, says) => {
    const location = locateConfig({ XDG_CONFIG_HOME: dir });
    mkdirSync(location.folder, { mode: 0o700 });
    writeFileSync(location.file, text, { mode: 0o600 });
    expect(() => readSavedConfig(location)).toThrow(location.file);
    expect(() => readSavedConfig(location)).toThrow("baton login");
    expect(() => readSavedConfig(location)).toThrow(says);
  });

  it("deleting removes the file and is fine when there is none", () => {
    const location = locateConfig({ XDG_CONFIG_HOME: dir });
    saveConfig(location, SAVED);
    deleteConfig(location);
    expect(() => lstatSync(location.file)).toThrow();
    deleteConfig(location);
  });
});
