// How many statements and commits an activation costs the store (issue 36: on PostgreSQL each statement is a round
// trip and each commit a WAL flush, and an activation was ~25 statements and two commits). Counted through the
// harness's real store, on either engine (BATON_TEST_STORE): its methods are wrapped to count calls, and every
// call still goes to the real engine. A behaviour check, not a timing: it fails when a change adds statements
// or commits back to the activation's path.
import { afterEach, describe, expect, it } from "vitest";
import type { Store, Transaction } from "../../../src/server/store/store.js";
import { OperationSchema } from "../../../src/transport/wire.js";
import { createHarness, type Harness } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface Count {
  /** Statements (get, all, run, lock) inside a transaction. */
  inside: number;
  /** Statements outside any transaction: each commits on its own when it writes. */
  outside: string[];
  transactions: number;
}

/** Counts what `db` is asked from now on; `stop` ends counting. */
function countStatements(db: Store): { count: Count; stop: () => void } {
  const count: Count = { inside: 0, outside: [], transactions: 0 };
  const target = db as unknown as Record<string, unknown>;
  const originals = new Map<string, unknown>();
  for (const method of ["get", "all", "run"] as const) {
    const original = db[method].bind(db);
    originals.set(method, target[method]);
    target[method] = (sql: string, params?: never) => {
      if (db.current()) count.inside += 1;
      else count.outside.push(sql);
      return original(sql, params);
    };
  }
  const transaction = db.transaction.bind(db);
  originals.set("transaction", target.transaction);
  target.transaction = <T>(work: (tx: Transaction) => Promise<T>, options?: never) => {
    if (!db.current()) count.transactions += 1;
    return transaction(
      (tx) =>
        work({
          ...tx,
          get: tx.get,
          all: tx.all,
          run: tx.run,
          notify: tx.notify,
          lock: (key) => {
            count.inside += 1;
            return tx.lock(key);
          },
        }),
      options,
    );
  };
  return {
    count,
    stop: () => {
      for (const [method, original] of originals) target[method] = original;
    },
  };
}

describe("an activation's statements and commits", () => {
  it("an activation that runs in its request is one transaction; outside it only the credentials lookup", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-count");
    // The first activation of a repository in an engagement also writes its ledger rows; measure the next one,
    // which is what every later activation (each turn's `baton env activate`) costs.
    expect(OperationSchema.parse(await (await harness.start(creds, "acme/api")).json()).state).toBe(
      "succeeded",
    );
    const { count, stop } = countStatements(harness.db);
    const answer = await harness.start(creds, "acme/api");
    stop();
    expect(OperationSchema.parse(await answer.json()).state).toBe("succeeded");
    expect(count.transactions).toBe(1);
    // The turn token and lease lookup; the lease use (sandbox activity) commits inside the transaction.
    expect(count.outside).toHaveLength(1);
    expect(count.outside[0]).toMatch(/^\s*SELECT/);
    // lock, activity, start facts, operation, idempotency record, every input in one statement, revision,
    // overlay, outcome (no savepoint): was 24 statements and two commits before issue 36.
    expect(count.inside).toBeLessThanOrEqual(9);
  });

  it("a repeated Idempotency-Key is answered from one transaction of a few statements", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-replay");
    await harness.start(creds, "acme/api", "same-key");
    const { count, stop } = countStatements(harness.db);
    const replay = await harness.start(creds, "acme/api", "same-key");
    stop();
    expect(replay.status).toBe(202);
    expect(count.transactions).toBe(1);
    expect(count.outside).toHaveLength(1);
    // lock, activity, start facts, the operation, its overlay.
    expect(count.inside).toBeLessThanOrEqual(5);
  });
});
