// A service's boxes outlive its process (issue 21 item 11), on both real drivers and a real SQLite file: a manager
// that detaches leaves them running; the next one on the same state folder adopts the boxes its store lists
// (forwarders on the same ports, pointing at wherever the service listens now), removes the ones its store no
// longer lists, and never touches the boxes of another state folder.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/log.js";
import { startSandboxManager } from "../../../src/server/adapters/sandboxes/start.js";
import { ephemeralSecretBox } from "../../../src/server/domain/secrets/index.js";
import { applySeed } from "../../../src/server/domain/seed/apply-seed.js";
import { SeedDocumentSchema } from "../../../src/server/domain/seed/schema.js";
import { DRIVERS, startListener } from "../../helpers/sandbox-drivers.js";
import { ACTIVATION_SEED } from "../../helpers/serve.js";
import { openSqliteStore } from "../../helpers/sqlite-store.js";

const tmp = mkdtempSync(join(tmpdir(), "baton-sandbox-adopt-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.each(DRIVERS)("boxes across service restarts on the %s driver", (driver) => {
  it("adopts the listed boxes on their old ports, reaps the unlisted, leaves other state folders alone", {
    timeout: 300_000,
  }, async () => {
    const logger = createLogger({ BATON_LOG_LEVEL: "error" }, "test");
    const open = async (name: string) => {
      const db = await openSqliteStore(join(mkdtempSync(join(tmp, `${name}-`)), "serve.sqlite"));
      await applySeed(
        db,
        SeedDocumentSchema.parse(JSON.parse(readFileSync(ACTIVATION_SEED, "utf8"))),
        new Date(),
        ephemeralSecretBox(),
      );
      return db;
    };
    const db = await open("store");
    const otherDb = await open("other");
    const serviceDir = join(tmp, `${driver}-service`);
    const otherDir = join(tmp, `${driver}-other`);
    // The service's own listener moves between runs (here: two listeners answering who they are).
    const before = await startListener("first run");
    const after = await startListener("second run");
    const start = (ops: number, dir: string, store = db) =>
      startSandboxManager({
        driver,
        ops: { host: "127.0.0.1", port: ops },
        db: store,
        logger,
        env: process.env,
        timers: false,
        serviceDir: dir,
      });
    const owner = (engagementId: string) => ({ workspaceId: "ws_acme", engagementId });
    const other = await start(before.port, otherDir, otherDb);
    const first = await start(before.port, serviceDir);
    try {
      const kept = await first.provision(owner(`kept-${driver}`));
      const dropped = await first.provision(owner(`dropped-${driver}`));
      const elsewhere = await other.provision(owner(`elsewhere-${driver}`));
      const curl = (manager: typeof first, sandboxId: string, engagementId: string) =>
        manager.exec(sandboxId, owner(engagementId), ["bash", "-c", 'curl -s "$BATON_OPS_URL/"'], {
          timeoutMs: 30_000,
        });
      expect((await curl(first, kept.box.sandboxId, `kept-${driver}`)).stdout).toBe("first run");
      await first.exec(kept.box.sandboxId, owner(`kept-${driver}`), ["bash", "-c", "echo wip > ~/wip"], {
        timeoutMs: 30_000,
      });
      // The store stops listing one box (as a run that died between making a box and recording it would leave).
      await db.run("UPDATE sandbox_boxes SET state = 'deleted' WHERE sandbox_id = ?", [
        dropped.box.sandboxId,
      ]);
      await first.detach();

      const second = await start(after.port, serviceDir);
      try {
        expect((await second.show(kept.box.sandboxId))?.state).toBe("running");
        const reached = await curl(second, kept.box.sandboxId, `kept-${driver}`);
        // Same BATON_OPS_URL (the box's own variable), now forwarded to the service's new address.
        expect(reached.stdout).toBe("second run");
        const wip = await second.exec(
          kept.box.sandboxId,
          owner(`kept-${driver}`),
          ["cat", "/home/agent/wip"],
          {
            timeoutMs: 30_000,
          },
        );
        expect(wip.stdout).toBe("wip\n");
        if (driver === "docker")
          expect(
            execFileSync("docker", ["ps", "-aq", "--filter", `id=${dropped.box.ref}`], { encoding: "utf8" }),
          ).toBe("");
        else expect(existsSync(dropped.box.ref!)).toBe(false);
        // The other state folder's box still works, through its own forwarders.
        expect((await curl(other, elsewhere.box.sandboxId, `elsewhere-${driver}`)).stdout).toBe("first run");
      } finally {
        await second.close();
      }
    } finally {
      await other.close();
      await first.close().catch(() => undefined);
      await db.close();
      await otherDb.close();
      before.server.close();
      after.server.close();
    }
  });
});
