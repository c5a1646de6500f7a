// The pool of ready boxes (issue 36 point 1) on both real drivers, through the real sandbox manager and a real
// SQLite file: a new sandbox takes a pooled box, which only then receives its checkout and credentials (a turn token
// and lease issued before, planted as canaries, are nowhere in a pooled box); the pool refills up to its size and
// never above; a box given to one sandbox is never handed out again; the memory floor keeps it empty and a miss
// creates a box; it drains on an image change, on close and on a deploy's detach (which keeps the tasks' boxes);
// and the manager's reconcile never reaps a pooled box.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/log.js";
import { checkCheckoutRoot } from "../../../src/server/adapters/sandboxes/checkout-root.js";
import { type IssuedSandbox, issueSandbox } from "../../../src/server/adapters/sandboxes/credentials.js";
import type { DriverName, SandboxDriver } from "../../../src/server/adapters/sandboxes/driver.js";
import { SandboxManager, type SandboxPoolOptions } from "../../../src/server/adapters/sandboxes/manager.js";
import { createSandboxDriver } from "../../../src/server/adapters/sandboxes/start.js";
import { ephemeralSecretBox } from "../../../src/server/domain/secrets/index.js";
import { applySeed } from "../../../src/server/domain/seed/apply-seed.js";
import { SeedDocumentSchema } from "../../../src/server/domain/seed/schema.js";
import type { Store } from "../../../src/server/store/store.js";
import { DRIVERS, startListener } from "../../helpers/sandbox-drivers.js";
import { ACTIVATION_SEED, FIXTURES } from "../../helpers/serve.js";
import { openTestStore } from "../../helpers/test-store.js";

const WS = "ws_acme";
const logger = createLogger({ BATON_LOG_LEVEL: "error" }, "test");

/** Whether the engine (Docker) or the state folder (namespace) still has the box. */
function boxExists(driver: DriverName, ref: string): boolean {
  if (driver === "namespace") return existsSync(ref);
  try {
    execFileSync("docker", ["inspect", ref], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe.each(DRIVERS)("the pool of ready boxes on the %s driver", (driverName) => {
  const tmp = mkdtempSync(join(tmpdir(), "baton-sandbox-pool-"));
  const checkout = join(FIXTURES, "repos", "acme-api");
  let db: Store;
  let ops: Awaited<ReturnType<typeof startListener>>;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    db = await openTestStore(tmp);
    await applySeed(
      db,
      SeedDocumentSchema.parse(JSON.parse(readFileSync(ACTIVATION_SEED, "utf8"))),
      new Date(),
      ephemeralSecretBox(),
    );
    ops = await startListener("ops");
  });
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close().catch(() => undefined);
    await db?.close();
    ops?.server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** A manager on a driver of its own, as `baton serve` makes them (createSandboxDriver), with `pool`. */
  async function start(pool: SandboxPoolOptions, serviceDir?: string) {
    const made = await createSandboxDriver({
      driver: driverName,
      ops: { host: "127.0.0.1", port: ops.port },
      env: process.env,
      serviceDir,
    });
    const manager = new SandboxManager({
      db,
      driver: made.driver,
      defaultImage: made.defaultImage,
      now: () => new Date(),
      logger,
      // The fixture repository lives under FIXTURES: the checkout root allows it.
      checkoutRoot: checkCheckoutRoot(FIXTURES, []),
      pool,
    });
    closers.push(() => manager.close());
    await manager.reconcile();
    manager.startPool();
    return { manager, driver: made.driver, image: made.defaultImage, pool: manager.boxPool! };
  }

  const issue = async (engagementId: string) =>
    (await issueSandbox(db, { workspaceId: WS, engagementId }, new Date())) as IssuedSandbox;
  /** Every place a credential could be in a box: its variables and its files (home, /tmp, /etc). */
  const findInBox = async (driver: SandboxDriver, ref: string, canary: string) =>
    driver.exec(
      ref,
      [
        "bash",
        "-c",
        'env | grep -cF -- "$1"; grep -rlF -- "$1" /home/agent /tmp /etc 2>/dev/null; true',
        "-",
        canary,
      ],
      { timeoutMs: 30_000 },
    );

  it("hands a pooled box to a new sandbox, which only then gets its checkout and credentials; refills to its size, never above; never hands a box out twice", async () => {
    const { manager, driver, pool } = await start({ size: 2, minFreeMemoryBytes: 0 });
    await pool.settled();
    const pooled = pool.refs();
    expect(pooled).toHaveLength(2);

    // The canaries exist (issued, in the store) before any box is handed out: no pooled box holds them.
    const issued = await issue("eng-pool-1");
    for (const ref of pooled)
      for (const canary of [issued.turnToken, issued.lease]) {
        const found = await findInBox(driver, ref, canary);
        expect(found.stdout.trim()).toBe("0");
      }
    const before = await driver.exec(pooled[0]!, ["bash", "-c", "ls -A ~/checkouts 2>/dev/null | wc -l"], {
      timeoutMs: 30_000,
    });
    expect(before.stdout.trim()).toBe("0");
    if (driverName === "docker")
      for (const ref of pooled)
        expect(execFileSync("docker", ["inspect", ref], { encoding: "utf8" })).not.toContain(
          "BATON_TURN_TOKEN",
        );

    // The manager's reconcile reaps boxes the store does not list: never the pool's.
    await manager.reconcile();
    for (const ref of pooled) expect(boxExists(driverName, ref)).toBe(true);

    const first = await manager.provision({
      workspaceId: WS,
      engagementId: "eng-pool-1",
      repository: "acme/api",
      checkout,
      issued,
    });
    expect(pooled).toContain(first.box.ref);
    expect(first.box.sandboxId).toBe(issued.sandboxId);
    // Handed out: the box's own commands now carry the credentials, and the checkout is in.
    const after = await driver.exec(
      first.box.ref!,
      [
        "bash",
        "-c",
        'printenv BATON_TURN_TOKEN; test -f ~/checkouts/acme/api/package.json && echo "checkout in"',
      ],
      { timeoutMs: 30_000 },
    );
    expect(after.stdout).toBe(`${issued.turnToken}\ncheckout in\n`);
    const owner = { workspaceId: WS, engagementId: "eng-pool-1" };
    expect((await manager.exec(issued.sandboxId, owner, ["id", "-un"], { timeoutMs: 30_000 })).stdout).toBe(
      "agent\n",
    );
    if (driverName === "docker")
      // Never in the container's configuration, which the engine's API shows to anyone it answers.
      expect(execFileSync("docker", ["inspect", first.box.ref!], { encoding: "utf8" })).not.toContain(
        issued.turnToken,
      );

    // The pool refills behind the hand-out, up to its size and not above, and without the box it gave.
    await pool.settled();
    expect(pool.refs()).toHaveLength(2);
    expect(pool.refs()).not.toContain(first.box.ref);
    pool.refill();
    await pool.settled();
    expect(pool.refs()).toHaveLength(2);

    // More sandboxes: each gets a box no one had; the first one's is never handed out again.
    const handed = new Set([first.box.ref]);
    for (const engagementId of ["eng-pool-2", "eng-pool-3"]) {
      const next = await manager.provision({
        workspaceId: WS,
        engagementId,
        repository: "acme/api",
        checkout,
      });
      expect(handed.has(next.box.ref)).toBe(false);
      handed.add(next.box.ref);
      await pool.settled();
      for (const ref of handed) expect(pool.refs()).not.toContain(ref);
    }
    // Given to its sandbox, a box stays its sandbox's: removing the sandbox removes it, it never returns.
    await manager.remove(issued.sandboxId, owner);
    expect(boxExists(driverName, first.box.ref!)).toBe(false);
    expect(pool.refs()).not.toContain(first.box.ref);

    // Shutdown drains: no pooled box is left once the manager closed.
    const last = pool.refs();
    expect(last).toHaveLength(2);
    await manager.close();
    for (const ref of last) expect(boxExists(driverName, ref)).toBe(false);
  });

  it("makes no box under the memory floor, and a miss creates one", async () => {
    const { manager, pool } = await start({ size: 2, minFreeMemoryBytes: Number.MAX_SAFE_INTEGER });
    await pool.settled();
    expect(pool.status()).toMatchObject({ ready: 0, making: 0 });
    const made = await manager.provision({
      workspaceId: WS,
      engagementId: "eng-pool-miss",
      repository: "acme/api",
      checkout,
    });
    expect(made.box.state).toBe("running");
    expect(boxExists(driverName, made.box.ref!)).toBe(true);
    await pool.settled();
    expect(pool.refs()).toEqual([]);
    await manager.close();
  });

  it("drains on an image change, and on a deploy's detach, which keeps the sandboxes' own boxes", async () => {
    const serviceDir = join(tmp, "service");
    const { manager, pool, image } = await start({ size: 1, minFreeMemoryBytes: 0 }, serviceDir);
    await pool.settled();
    const [old] = pool.refs();
    expect(old).toBeDefined();
    // The same image under a new name (Docker: a tag; the namespace driver runs its root filesystem whatever
    // the name): the pool's boxes of the old name are removed and boxes of the new one made.
    const renamed =
      driverName === "docker" ? `${image.split(":")[0]}:pool-test-${process.pid}` : `${image}#2`;
    if (driverName === "docker") execFileSync("docker", ["tag", image, renamed]);
    let kept: Awaited<ReturnType<SandboxManager["provision"]>> | undefined;
    try {
      await pool.retarget(renamed);
      await pool.settled();
      expect(boxExists(driverName, old!)).toBe(false);
      expect(pool.refs()).toHaveLength(1);
      expect(pool.status().image).toBe(renamed);

      kept = await manager.provision({
        workspaceId: WS,
        engagementId: "eng-pool-deploy",
        repository: "acme/api",
        checkout,
        image: renamed,
      });
      await pool.settled();
      const pooled = pool.refs();
      expect(pooled).toHaveLength(1);
      await manager.detach();
      for (const ref of pooled) expect(boxExists(driverName, ref)).toBe(false);
      expect(boxExists(driverName, kept.box.ref!)).toBe(true);
    } finally {
      // What a detach leaves on purpose goes with a driver started on the same state folder.
      const after = await createSandboxDriver({
        driver: driverName,
        ops: { host: "127.0.0.1", port: ops.port },
        env: process.env,
        serviceDir,
      });
      try {
        // The next run adopts the box handed out of the pool with its variables (a Docker box's are not in its
        // container's configuration, which was fixed before any task: the driver keeps them in the state folder).
        if (kept) {
          const adopted = await after.driver.exec(kept.box.ref!, ["printenv", "BATON_OPS_URL"], {
            timeoutMs: 30_000,
          });
          expect(adopted.stdout.trim()).toBe(kept.env.BATON_OPS_URL);
        }
      } finally {
        await after.driver.close();
      }
      if (driverName === "docker") execFileSync("docker", ["rmi", renamed], { stdio: "ignore" });
    }
  });
});
