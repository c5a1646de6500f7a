// Namespace boxes run as host uids of their own, so the driver's state folder must sit where every user may pass.
// Under a private TMPDIR (0700, as `mktemp -d` makes) the driver refuses at start, naming the folder and the fix,
// instead of starting and letting bubblewrap fail every box later with "Permission denied".
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../../../../src/errors.js";
import { createNamespaceDriver } from "../../../../../src/server/adapters/sandboxes/drivers/namespace.js";
import { findUnsearchableFolder } from "../../../../../src/server/adapters/sandboxes/drivers/searchable-path.js";

let folder: string;
afterEach(() => rmSync(folder, { recursive: true, force: true }));

function privateFolder(): string {
  folder = mkdtempSync(join(tmpdir(), "baton-private-tmp-"));
  chmodSync(folder, 0o700);
  return folder;
}

describe("the namespace driver's state folder must be reachable by every box uid", () => {
  it("finds the nearest folder above a path that other users cannot pass through", async () => {
    const closed = privateFolder();
    mkdirSync(join(closed, "open"), { mode: 0o755 });
    expect(await findUnsearchableFolder(join(closed, "open", "missing", "state"))).toBe(closed);
    chmodSync(closed, 0o711);
    expect(await findUnsearchableFolder(join(closed, "open", "state"))).toBeUndefined();
  });

  it("refuses to start under a private folder, naming it, TMPDIR and chmod o+x", async () => {
    const closed = privateFolder();
    const stateDir = join(closed, "baton-sandbox-ns");
    const started = createNamespaceDriver({
      endpoints: {},
      rootfs: "/nonexistent",
      batonDir: "/nonexistent",
      stateDir,
    });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toThrow(`cannot pass through ${closed}`);
    await expect(started).rejects.toThrow(/set TMPDIR to a folder every user may pass through.*chmod o\+x/);
  });
});
