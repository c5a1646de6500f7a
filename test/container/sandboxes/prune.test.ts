// Issue 37 A4: a stopped `baton serve` keeps its boxes by design (a deploy must not end them); `baton admin
// prune-sandboxes` removes them on request. A real `baton serve` child process on the namespace driver (the
// cheapest real driver: no image build, a root filesystem the test run's setup already made), a real SQLite file,
// the built CLI. Prune refuses while the service runs (its store's lock), then removes the box once it stopped.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ADMIN_PATHS, HEADERS } from "../../../src/transport/wire.js";
import { runBaton } from "../../helpers/cli.js";
import { ACTIVATION_SEED, killLeftoverServes, startServe } from "../../helpers/serve.js";

const dirs: string[] = [];
afterEach(async () => {
  await killLeftoverServes();
  for (const dir of dirs.splice(0)) {
    // Whatever a failed run left: the same command the test checks, then the folder.
    await runBaton([
      "admin",
      "prune-sandboxes",
      "--sandbox-driver",
      "namespace",
      "--db",
      join(dir, "serve.sqlite"),
    ]);
    await rm(dir, { recursive: true, force: true });
  }
});

describe("baton admin prune-sandboxes", () => {
  it("removes the boxes a stopped service kept, and refuses while it runs", {
    timeout: 300_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), "baton-prune-"));
    dirs.push(dir);
    const serve = await startServe({ dir, seed: ACTIVATION_SEED, args: ["--sandbox-driver", "namespace"] });
    const made = (await (
      await serve.admin(ADMIN_PATHS.sandboxes, { workspaceId: "ws_acme", engagementId: "prune-1" })
    ).json()) as { sandboxId: string };
    const view = (await (
      await fetch(new URL(ADMIN_PATHS.sandbox.replace(":id", made.sandboxId), serve.adminUrl), {
        headers: { [HEADERS.adminToken]: serve.adminToken },
      })
    ).json()) as { ref: string };
    // The namespace driver's ref is the box's folder.
    expect(existsSync(view.ref)).toBe(true);
    const prune = ["admin", "prune-sandboxes", "--sandbox-driver", "namespace", "--db", serve.dbPath];

    const whileRunning = await runBaton(prune);
    expect(whileRunning.exitCode).not.toBe(0);
    expect(whileRunning.stderr).toContain("is in use by another baton serve");
    expect(existsSync(view.ref)).toBe(true);

    expect(await serve.stop()).toBe(0);
    // A stop keeps the box (a deploy keeps them).
    expect(existsSync(view.ref)).toBe(true);

    const pruned = await runBaton([...prune, "--json"]);
    expect(pruned.exitCode, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout)).toEqual({ removed: [view.ref] });
    expect(existsSync(view.ref)).toBe(false);

    const again = await runBaton(prune);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain("No sandboxes of");
  });
});
