// The operator's key file when several instances start together on one path (two `baton serve --database-url`
// sharing a key file, as docs/scale.md runs them): exactly one creates it, every one reads the same key, and no
// draft is left beside it. Concurrent calls in one process interleave their file operations as two processes do;
// the disk is made slow (each write waits 50 ms, as a loaded CI machine's did) so that the others look at the key
// file while its creator is still writing it.
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { loadOrCreateSecretKey } from "../../../../../src/server/domain/secrets/key-file.js";

vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>();
  const slowOpen = async (...args: Parameters<typeof real.open>) => {
    const handle = await real.open(...args);
    const write = handle.writeFile.bind(handle);
    handle.writeFile = async (...writeArgs: Parameters<typeof handle.writeFile>) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return write(...writeArgs);
    };
    return handle;
  };
  return { ...real, default: { ...real, open: slowOpen }, open: slowOpen };
});

let folder: string;
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "baton-key-file-"));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("loadOrCreateSecretKey", () => {
  it("gives instances started together one key, created once, with no draft left behind", async () => {
    const file = join(folder, "keys", "secret.key");
    const loaded = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateSecretKey(file)));
    expect(loaded.filter((each) => each.created)).toHaveLength(1);
    const sealed = loaded[0]?.box.seal("repo_1/TOKEN", "canary-value") ?? "";
    for (const each of loaded) expect(each.box.open("repo_1/TOKEN", sealed)).toBe("canary-value");
    expect(await readdir(join(folder, "keys"))).toEqual(["secret.key"]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("reads the key it created at the next start", async () => {
    const file = join(folder, "secret.key");
    const first = await loadOrCreateSecretKey(file);
    const again = await loadOrCreateSecretKey(file);
    expect([first.created, again.created]).toEqual([true, false]);
    expect(again.box.open("repo_1/TOKEN", first.box.seal("repo_1/TOKEN", "canary-value"))).toBe(
      "canary-value",
    );
  });

  it("refuses a file that does not hold a key, naming the fix", async () => {
    const file = join(folder, "secret.key");
    await writeFile(file, "not a key\n", { mode: 0o600 });
    await expect(loadOrCreateSecretKey(file)).rejects.toThrow(
      /does not hold a 32-byte base64 key; restore it from backup/,
    );
  });
});
