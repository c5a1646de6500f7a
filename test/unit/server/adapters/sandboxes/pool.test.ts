// The pool's bookkeeping (issue 36 point 1) over a fake driver: the real drivers are tested in
// test/container/sandboxes/pool.test.ts; here the driver is faked so that a box's making can be held half-way and
// the machine's free memory set, which no real engine lets a test do on demand.
import { describe, expect, it } from "vitest";
import type { CreatedBox, PreparedBoxSpec } from "../../../../../src/server/adapters/sandboxes/driver.js";
import { BoxPool, type BoxPoolOptions } from "../../../../../src/server/adapters/sandboxes/pool.js";

/** Boxes the fake engine holds now, every spec it was asked to prepare, and a gate each preparation waits on. */
function fakeDriver() {
  const live = new Set<string>();
  const asked: PreparedBoxSpec[] = [];
  const removed: string[] = [];
  let gate: Promise<void> = Promise.resolve();
  let open: () => void = () => {};
  let failNext = false;
  let n = 0;
  return {
    live,
    asked,
    removed,
    /** Holds every later preparation until `release()`. */
    hold() {
      gate = new Promise((resolve) => {
        open = resolve;
      });
    },
    release: () => open(),
    failOnce() {
      failNext = true;
    },
    driver: {
      async prepare(spec: PreparedBoxSpec): Promise<CreatedBox> {
        asked.push(spec);
        await gate;
        if (failNext) {
          failNext = false;
          throw new Error("engine said no");
        }
        const ref = `box-${++n}`;
        live.add(ref);
        return { ref, reach: {} };
      },
      async remove(ref: string) {
        live.delete(ref);
        removed.push(ref);
      },
    },
  };
}

function makePool(fake: ReturnType<typeof fakeDriver>, options: Partial<BoxPoolOptions> = {}) {
  const errors: string[] = [];
  let n = 0;
  const pool = new BoxPool({
    driver: fake.driver,
    image: "img:1",
    size: 2,
    memoryAllows: () => true,
    name: () => `baton-sandbox-pool-${++n}`,
    onError: (_error, what) => errors.push(what),
    ...options,
  });
  return { pool, errors };
}

describe("the pool of ready boxes", () => {
  it("fills in the background up to its size and never above it, however often it is asked to", async () => {
    const fake = fakeDriver();
    const { pool } = makePool(fake, { size: 3 });
    for (let i = 0; i < 5; i++) pool.refill();
    await pool.settled();
    pool.refill();
    await pool.settled();
    expect(fake.asked).toHaveLength(3);
    expect(pool.refs()).toEqual(["box-1", "box-2", "box-3"]);
    expect(pool.status()).toEqual({ image: "img:1", size: 3, ready: 3, making: 0 });
  });

  it("hands out a ready box once, refills behind it, and never hands the same box out again", async () => {
    const fake = fakeDriver();
    const { pool } = makePool(fake);
    pool.refill();
    await pool.settled();
    const taken: string[] = [];
    for (let i = 0; i < 6; i++) {
      const box = pool.take("img:1");
      expect(box).toBeDefined();
      taken.push(box!.ref);
      await pool.settled();
      expect(pool.refs()).not.toContain(box!.ref);
    }
    expect(new Set(taken).size).toBe(6);
    expect(pool.refs()).toHaveLength(2);
  });

  it("counts the boxes being made against its size (a take during a fill does not start a second one)", async () => {
    const fake = fakeDriver();
    const { pool } = makePool(fake, { size: 1 });
    fake.hold();
    pool.refill();
    expect(pool.take("img:1")).toBeUndefined();
    pool.refill();
    expect(pool.status().making).toBe(1);
    fake.release();
    await pool.settled();
    expect(fake.asked).toHaveLength(1);
  });

  it("is a miss for another image, and an empty pool is a miss (the caller creates a box)", async () => {
    const fake = fakeDriver();
    const { pool } = makePool(fake);
    expect(pool.take("img:1")).toBeUndefined();
    await pool.settled();
    expect(pool.take("other:2")).toBeUndefined();
    expect(pool.refs()).toHaveLength(2);
  });

  it("makes no box while the machine's free memory is under the floor, and fills once it is back", async () => {
    const fake = fakeDriver();
    let enough = false;
    const { pool } = makePool(fake, { memoryAllows: () => enough });
    pool.refill();
    await pool.settled();
    expect(fake.asked).toHaveLength(0);
    expect(pool.take("img:1")).toBeUndefined();
    enough = true;
    pool.refill();
    await pool.settled();
    expect(pool.refs()).toHaveLength(2);
  });

  it("drains on an image change: the old image's boxes are removed, a box in the making never enters", async () => {
    const fake = fakeDriver();
    const { pool } = makePool(fake);
    pool.refill();
    await pool.settled();
    const old = pool.refs();
    pool.take("img:1"); // starts a fill of img:1
    fake.hold();
    await new Promise((resolve) => setImmediate(resolve));
    const retargeted = pool.retarget("img:2");
    fake.release();
    await retargeted;
    await pool.settled();
    pool.refill();
    await pool.settled();
    for (const ref of old.slice(1)) expect(fake.removed).toContain(ref);
    expect(pool.status().image).toBe("img:2");
    expect(pool.take("img:1")).toBeUndefined();
    await pool.settled();
    // Every box left in the pool, and every box the engine still has besides the one taken, is img:2's.
    const img2 = fake.asked.filter((spec) => spec.image === "img:2").length;
    expect(pool.refs().length).toBeLessThanOrEqual(2);
    expect(img2).toBeGreaterThanOrEqual(2);
    expect([...fake.live].filter((ref) => ref !== old[0])).toEqual(expect.arrayContaining(pool.refs()));
    expect(fake.live.size).toBe(pool.refs().length + 1);
  });

  it("drains on shutdown: every pooled box is removed, a box in the making too, and nothing refills", async () => {
    const fake = fakeDriver();
    const { pool } = makePool(fake);
    pool.refill();
    await pool.settled();
    pool.take("img:1");
    fake.hold();
    const draining = pool.drain();
    fake.release();
    await draining;
    expect(fake.live.size).toBe(1); // the box taken is its task's, not the pool's
    pool.refill();
    await pool.settled();
    expect(pool.take("img:1")).toBeUndefined();
    expect(fake.live.size).toBe(1);
  });

  it("carries on after a box could not be made: the failure is told, and the next take tries again", async () => {
    const fake = fakeDriver();
    const { pool, errors } = makePool(fake, { size: 1 });
    fake.failOnce();
    pool.refill();
    await pool.settled();
    expect(errors).toEqual(["could not prepare a pooled box"]);
    expect(pool.take("img:1")).toBeUndefined();
    await pool.settled();
    expect(pool.refs()).toHaveLength(1);
  });
});
