// A restarted service and its boxes, on both real drivers and a real SQLite file: the boxes of the service that
// stopped are gone (its driver removed them), so the next service records each as `lost` before anyone can see
// it as running; the engagement's next box is new, with its pinned image; the sweeps run as soon as their timers
// start.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/log.js";
import { checkCheckoutRoot } from "../../../src/server/adapters/sandboxes/checkout-root.js";
import { LIFECYCLE_LIMITS } from "../../../src/server/adapters/sandboxes/lifecycle.js";
import { startSandboxManager } from "../../../src/server/adapters/sandboxes/start.js";
import { ephemeralSecretBox } from "../../../src/server/domain/secrets/index.js";
import { applySeed } from "../../../src/server/domain/seed/apply-seed.js";
import { SeedDocumentSchema } from "../../../src/server/domain/seed/schema.js";
import { DRIVERS, startListener } from "../../helpers/sandbox-drivers.js";
import { ACTIVATION_SEED, FIXTURES } from "../../helpers/serve.js";
import { openSqliteStore } from "../../helpers/sqlite-store.js";

const tmp = mkdtempSync(join(tmpdir(), "baton-sandbox-restart-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.each(DRIVERS)("a restarted service on the %s driver", (driver) => {
  it("records the stopped service's boxes as lost, and runs the sweeps at start", async () => {
    let clock = Date.parse("2026-03-02T09:00:00Z");
    const db = await openSqliteStore(join(mkdtempSync(join(tmp, "store-")), "serve.sqlite"));
    const ops = await startListener("ops");
    const logger = createLogger({ BATON_LOG_LEVEL: "error" }, "test");
    await applySeed(
      db,
      SeedDocumentSchema.parse(JSON.parse(readFileSync(ACTIVATION_SEED, "utf8"))),
      new Date(clock),
      ephemeralSecretBox(),
    );
    const start = (timers: boolean) =>
      startSandboxManager({
        driver,
        ops: { host: "127.0.0.1", port: ops.port },
        db,
        logger,
        env: process.env,
        now: () => new Date(clock),
        timers,
        checkoutRoot: checkCheckoutRoot(join(FIXTURES, "repos"), []),
      });
    try {
      const first = await start(false);
      const owner = { workspaceId: "ws_acme", engagementId: `restart-${driver}` };
      const old = { workspaceId: "ws_acme", engagementId: `restart-old-${driver}` };
      const kept = await first.provision({ ...owner, checkout: join(FIXTURES, "repos", "acme-api") });
      const archived = await first.provision({ ...old });
      await first.cancel(archived.box.sandboxId, old);
      expect((await first.show(kept.box.sandboxId))?.state).toBe("running");
      expect((await first.show(archived.box.sandboxId))?.state).toBe("archived");
      await first.close();

      const second = await start(false);
      try {
        for (const id of [kept.box.sandboxId, archived.box.sandboxId]) {
          const view = (await second.show(id))!;
          expect(view.state).toBe("deleted");
          expect(view.transitions.at(-1)).toMatchObject({
            from: expect.any(String),
            to: "deleted",
            reason: "lost",
          });
        }
        // The engagement's next box is a new one, made with the image pinned to it.
        const again = await second.provision({ ...owner });
        expect(again.box.sandboxId).not.toBe(kept.box.sandboxId);
        expect(again.box.image).toBe(kept.box.image);

        // The sweeps run when their timers start, not only an interval later.
        clock += LIFECYCLE_LIMITS.idleStopMs + 1;
        second.startTimers();
        const deadline = Date.now() + 20_000;
        while ((await second.show(again.box.sandboxId))?.state !== "stopped" && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 50));
        expect((await second.show(again.box.sandboxId))?.transitions.at(-1)).toMatchObject({
          from: "running",
          to: "stopped",
          reason: "idle",
        });
      } finally {
        await second.close();
      }
    } finally {
      await db.close();
      ops.server.close();
    }
  });
});
