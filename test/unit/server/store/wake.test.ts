// Waiting for a change on both engines: a commit with a notification wakes the wait at once (from another
// instance on PostgreSQL), polling finds what no notification announced, and the wait always ends clean.
import { describe, expect, it } from "vitest";
import type { Store } from "../../../../src/server/store/store.js";
import { waitForChange } from "../../../../src/server/store/wake.js";
import { pollUntil } from "../../../helpers/poll.js";
import { admin, ENGINES, useEngine, useSchema } from "../../../helpers/postgres.js";

const FLAGS_DDL = "CREATE TABLE flags (name TEXT PRIMARY KEY)";

function flagCheck(store: Store, name: string, counter = { checks: 0 }) {
  return async () => {
    counter.checks += 1;
    const row = await store.get<{ name: string }>("SELECT name FROM flags WHERE name = ?", [name]);
    return row?.name;
  };
}

async function raiseFlag(store: Store, name: string, notify: boolean): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.run("INSERT INTO flags (name) VALUES (?)", [name]);
    if (notify) tx.notify("flags", name);
  });
}

/** Waits until the wait has made its first check, so what comes next can only reach it by waking it. */
async function firstCheckDone(counter: { checks: number }): Promise<void> {
  await pollUntil(
    () => counter.checks,
    (n) => n >= 1,
    { timeoutMs: 10_000, intervalMs: 5 },
  );
  await new Promise((resolve) => setTimeout(resolve, 50)); // let that check's answer arrive and the wait sleep
}

/** The store with its live listeners counted (a pass-through: every call reaches the real store). */
function countingListeners(store: Store): { store: Store; listening: () => number } {
  let listening = 0;
  const counted = {
    engine: store.engine,
    dialect: store.dialect,
    get: (sql: string, params?: never) => store.get(sql, params),
    all: (sql: string, params?: never) => store.all(sql, params),
    run: (sql: string, params?: never) => store.run(sql, params),
    transaction: (work: never, options?: never) => store.transaction(work, options),
    close: () => store.close(),
    async listen(channel: string, onNotify: (payload: string) => void) {
      const stop = await store.listen(channel, onNotify);
      listening += 1;
      return async () => {
        listening -= 1;
        await stop();
      };
    },
  } as Store;
  return { store: counted, listening: () => listening };
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;
}

describe.each(ENGINES)("waitForChange on the $name engine", (engine) => {
  const db = useEngine(engine, FLAGS_DDL);

  it("wakes on another instance's commit well before the poll interval", async () => {
    const counter = { checks: 0 };
    const waiting = waitForChange(db.store, "flags", {
      check: flagCheck(db.store, "go", counter),
      timeoutMs: 30_000,
      pollMs: 20_000,
    });
    await firstCheckDone(counter);
    const started = performance.now();
    await raiseFlag(db.another(), "go", true);
    expect(await waiting).toBe("go");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("with a payload, a notification for another thing on the channel does not wake the wait; its own does", async () => {
    const counter = { checks: 0 };
    const waiting = waitForChange(db.store, "flags", {
      check: flagCheck(db.store, "mine", counter),
      timeoutMs: 30_000,
      pollMs: 20_000,
      payload: "mine",
    });
    await firstCheckDone(counter);
    await raiseFlag(db.another(), "theirs", true);
    // Long enough for the other notification to arrive on either engine; it must not have cost a check.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(counter.checks).toBe(1);
    const started = performance.now();
    await raiseFlag(db.another(), "mine", true);
    expect(await waiting).toBe("mine");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(counter.checks).toBe(2);
  });

  it("a channel named past PostgreSQL's 63-byte identifier limit still wakes the wait, and its commit succeeds", async () => {
    const channel = `engagement:${"e".repeat(100)}`;
    const counter = { checks: 0 };
    const waiting = waitForChange(db.store, channel, {
      check: flagCheck(db.store, "long", counter),
      timeoutMs: 30_000,
      pollMs: 20_000,
    });
    await firstCheckDone(counter);
    const started = performance.now();
    await db.another().transaction(async (tx) => {
      await tx.run("INSERT INTO flags (name) VALUES ('long')");
      tx.notify(channel);
    });
    expect(await waiting).toBe("long");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("finds a change no notification announced by polling, within about one poll interval", async () => {
    const counter = { checks: 0 };
    const waiting = waitForChange(db.store, "flags", {
      check: flagCheck(db.store, "quiet", counter),
      timeoutMs: 30_000,
      pollMs: 300,
    });
    await firstCheckDone(counter);
    const started = performance.now();
    await raiseFlag(db.another(), "quiet", false);
    expect(await waiting).toBe("quiet");
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("resolves at once when the thing is already there", async () => {
    await raiseFlag(db.store, "early", false);
    expect(
      await waitForChange(db.store, "flags", {
        check: flagCheck(db.store, "early"),
        timeoutMs: 1,
        pollMs: 1,
      }),
    ).toBe("early");
  });

  it("times out to undefined and leaves no listener or timer behind", async () => {
    const counted = countingListeners(db.store);
    const timers = activeTimers();
    const started = performance.now();
    const found = await waitForChange(counted.store, "flags", {
      check: async () => undefined,
      timeoutMs: 400,
      pollMs: 100,
    });
    expect(found).toBeUndefined();
    expect(performance.now() - started).toBeGreaterThanOrEqual(390);
    expect(counted.listening()).toBe(0);
    // Other timers of the process may end meanwhile, never start: a wait that left its timer would add one.
    expect(activeTimers()).toBeLessThanOrEqual(timers);
  });

  it("an abort rejects with the signal's reason and removes its listener and timer", async () => {
    const counted = countingListeners(db.store);
    const counter = { checks: 0 };
    const controller = new AbortController();
    const waiting = waitForChange(counted.store, "flags", {
      check: async () => {
        counter.checks += 1;
        return undefined;
      },
      timeoutMs: 30_000,
      pollMs: 20_000,
      signal: controller.signal,
    });
    await firstCheckDone(counter);
    expect(counted.listening()).toBe(1);
    const sleeping = activeTimers(); // the wait's 20 s poll timer among them
    controller.abort(new Error("the client went away"));
    await expect(waiting).rejects.toThrow("the client went away");
    expect(counted.listening()).toBe(0);
    // The abort cleared the wait's poll timer (other timers of the process may end too, never start).
    expect(activeTimers()).toBeLessThanOrEqual(sleeping - 1);
  });

  it("an aborted signal stops the wait before it listens", async () => {
    const counted = countingListeners(db.store);
    await expect(
      waitForChange(counted.store, "flags", {
        check: async () => "never checked",
        timeoutMs: 1_000,
        pollMs: 100,
        signal: AbortSignal.abort(new Error("already gone")),
      }),
    ).rejects.toThrow("already gone");
    expect(counted.listening()).toBe(0);
  });
});

describe("waitForChange on PostgreSQL when the LISTEN connection dies", () => {
  const schemas = useSchema();

  it("a notification lost with its LISTEN backend costs at most one poll interval", async () => {
    const lost: unknown[] = [];
    // A long reconnect delay keeps the listener down for the whole test: only polling can find the change.
    const waiter = schemas.current.open({
      reconnectDelayMs: 60_000,
      onListenError: (error) => lost.push(error),
    });
    const writer = schemas.current.open();
    await writer.run(FLAGS_DDL);
    const counter = { checks: 0 };
    const waiting = waitForChange(waiter, "flags", {
      check: flagCheck(waiter, "after-kill", counter),
      timeoutMs: 30_000,
      pollMs: 400,
    });
    await firstCheckDone(counter);
    const killed = await admin(
      "SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query = $1",
      [`LISTEN "${schemas.current.schema}.flags"`],
    );
    expect(killed.rows).toEqual([{ killed: true }]);
    await pollUntil(
      () => lost.length,
      (n) => n > 0,
      { timeoutMs: 10_000, intervalMs: 10 },
    );
    const started = performance.now();
    await raiseFlag(writer, "after-kill", true);
    expect(await waiting).toBe("after-kill");
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
