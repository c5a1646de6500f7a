// Issue 37 A4: a stopped `baton serve` keeps its boxes by design (a deploy must not end them); `baton admin
// prune-sandboxes` removes them on request. A real `baton serve` child process on the namespace driver (the
// cheapest real driver: no image build, a root filesystem the test run's setup already made), a real SQLite file,
// the built CLI. Prune refuses while the service runs (its store's lock), then removes the box once it stopped.
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { runBaton } from "../../helpers/cli.js";
import { removeKeptBoxes, serveWithOneBox } from "../../helpers/kept-boxes.js";

afterEach(removeKeptBoxes);

describe("baton admin prune-sandboxes", () => {
  it("removes the boxes a stopped service kept, and refuses while it runs", {
    timeout: 300_000,
  }, async () => {
    const { serve, ref } = await serveWithOneBox("prune", "prune-1");
    // The namespace driver's ref is the box's folder.
    expect(existsSync(ref)).toBe(true);
    const prune = ["admin", "prune-sandboxes", "--sandbox-driver", "namespace", "--db", serve.dbPath];

    const whileRunning = await runBaton(prune);
    expect(whileRunning.exitCode).not.toBe(0);
    expect(whileRunning.stderr).toContain("is in use by another baton serve");
    expect(existsSync(ref)).toBe(true);

    expect(await serve.stop()).toBe(0);
    // A stop keeps the box (a deploy keeps them).
    expect(existsSync(ref)).toBe(true);

    const pruned = await runBaton([...prune, "--json"]);
    expect(pruned.exitCode, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout)).toEqual({ removed: [ref] });
    expect(existsSync(ref)).toBe(false);

    const again = await runBaton(prune);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toContain("No sandboxes of");
  });
});
