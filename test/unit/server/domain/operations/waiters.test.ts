// Operation long-polls (OperationWaiters) on both engines: a state change committed by this instance or another
// answers the wait at once (the fallback poll set to 20 s could not), and a stopping service or a caller that
// went away answers it at once with the state it has. The table holds only the columns these steps touch: the
// waiters read the row and markRunning writes it, nothing else of the schema is involved.
import { afterEach, describe, expect, it } from "vitest";
import { OperationWaiters } from "../../../../../src/server/domain/operations/waiters.js";
import { markRunning } from "../../../../../src/server/store/operations.js";
import { ENGINES, useEngine } from "../../../../helpers/postgres.js";

const OPERATIONS_DDL =
  "CREATE TABLE operations (id TEXT PRIMARY KEY, state TEXT NOT NULL, attempts INTEGER NOT NULL, updated_at TEXT, claimed_by TEXT, lease_until_ms BIGINT)";
const SLOW_POLL_MS = 20_000;

describe.each(ENGINES)("operation long-polls on the $name engine", (engine) => {
  const db = useEngine(engine, OPERATIONS_DDL);
  const open: OperationWaiters[] = [];
  afterEach(() => {
    for (const waiters of open.splice(0)) waiters.wakeAll();
  });
  const waitersOn = () => {
    const waiters = new OperationWaiters(db.store, SLOW_POLL_MS);
    open.push(waiters);
    return waiters;
  };
  const addPending = (id: string) =>
    db.store.run("INSERT INTO operations (id, state, attempts) VALUES (?, 'pending', 0)", [id]);

  it("a state change committed by this or another instance answers the wait at once", async () => {
    await addPending("op_1");
    const waiting = waitersOn().waitForState("op_1", "pending", 30_000);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the wait has read `pending` and sleeps
    const other = db.another();
    const began = performance.now();
    await other.transaction(async () =>
      markRunning(other, "op_1", { owner: "instance-b", leaseUntilMs: Date.now() + 30_000 }, new Date()),
    );
    expect((await waiting)?.state).toBe("running");
    expect(performance.now() - began).toBeLessThan(SLOW_POLL_MS / 10);
  });

  it("another operation's change does not end the wait", async () => {
    await addPending("op_1");
    await addPending("op_2");
    const waiting = waitersOn().waitForState("op_1", "pending", 800);
    await db.store.transaction(async () =>
      markRunning(db.store, "op_2", { owner: "instance-a", leaseUntilMs: Date.now() + 30_000 }, new Date()),
    );
    expect((await waiting)?.state).toBe("pending");
  });

  it("a stopping service answers open waits, and later ones, at once with the state they have", async () => {
    await addPending("op_1");
    const waiters = waitersOn();
    const waiting = waiters.waitForState("op_1", "pending", 30_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const began = performance.now();
    waiters.wakeAll();
    expect((await waiting)?.state).toBe("pending");
    expect((await waiters.waitForState("op_1", "pending", 30_000))?.state).toBe("pending");
    expect(performance.now() - began).toBeLessThan(2_000);
  });

  it("a caller that goes away ends its wait at once", async () => {
    await addPending("op_1");
    const gone = new AbortController();
    const waiting = waitersOn().waitForState("op_1", "pending", 30_000, gone.signal);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const began = performance.now();
    gone.abort();
    expect((await waiting)?.state).toBe("pending");
    expect(performance.now() - began).toBeLessThan(2_000);
  });
});
