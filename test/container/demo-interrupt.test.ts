// Issue 37 A4: `npm run demo` interrupted left its Docker box running. The terminal's Ctrl-C reaches the demo's
// `baton serve` too (one process group), which stops at once and keeps its boxes (a deploy keeps them), so the
// demo's admin-API cleanup found no service to ask. Its cleanup hook (scripts/demo/boxes.mjs) now prunes the
// stopped service's store. Here a real `baton serve` on the namespace driver (the demo uses Docker; the hook runs
// the same command with the driver's name, and the namespace driver needs no image build) gets the SIGINT a
// Ctrl-C sends, then the hook runs as the demo's stop does. Running the whole demo to its box step and pressing
// Ctrl-C would take minutes of image and build work per run; this runs the part that failed.
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
// @ts-expect-error plain ES module script without types
import { deleteThroughService, pruneStoppedService } from "../../scripts/demo/boxes.mjs";
import { removeKeptBoxes, serveWithOneBox } from "../helpers/kept-boxes.js";

afterEach(removeKeptBoxes);

describe("the demo's cleanup after a Ctrl-C", () => {
  it("removes the box a SIGINT-stopped service kept", { timeout: 300_000 }, async () => {
    const { serve, ref } = await serveWithOneBox("demo-interrupt", "demo");
    expect(existsSync(ref)).toBe(true);

    // What Ctrl-C in the demo's terminal does to its service.
    serve.child.kill("SIGINT");
    expect(await serve.exited).toBe(0);
    expect(existsSync(ref)).toBe(true);

    // The demo's stop: the admin API first (the service is gone: nothing to ask), then the prune.
    const ctx = { serve: serve.child, adminUrl: serve.adminUrl, adminToken: serve.adminToken };
    await deleteThroughService(ctx);
    expect(existsSync(ref)).toBe(true);
    const removed = pruneStoppedService({ driver: "namespace", db: serve.dbPath });
    expect(removed).toEqual([ref]);
    expect(existsSync(ref)).toBe(false);
  });
});
