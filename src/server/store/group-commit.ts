// Group commit: write transactions queued during one turn of the event loop commit together, so many requests
// share one synchronous=FULL fsync instead of paying one each (node:sqlite blocks the event loop for the
// fsync, so per-request commits cap the whole service at a few thousand a second). Each piece of work runs in
// its own savepoint, in queue order: it sees the writes of the ones before it, and a piece that throws rolls
// back only itself, exactly as if each had its own transaction. Nothing is acknowledged before the shared
// COMMIT returns: a crash loses the whole batch, and every one of its requests is still unanswered.
import type { Database } from "./sqlite.js";
import { statement } from "./statements.js";

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

class GroupCommit {
  private queue: Pending[] = [];

  constructor(private readonly db: Database) {}

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.queue.length === 0) setImmediate(() => this.flush());
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    const { db } = this;
    const outcomes: ({ ok: true; value: unknown } | { ok: false; error: unknown })[] = [];
    try {
      statement(db, "BEGIN IMMEDIATE").run();
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    try {
      for (const item of batch) {
        statement(db, "SAVEPOINT group_item").run();
        try {
          outcomes.push({ ok: true, value: item.work() });
          statement(db, "RELEASE group_item").run();
        } catch (error) {
          statement(db, "ROLLBACK TO group_item").run();
          statement(db, "RELEASE group_item").run();
          outcomes.push({ ok: false, error });
        }
      }
      statement(db, "COMMIT").run();
    } catch (error) {
      // The store itself failed (I/O, disk full): nothing of the batch is durable, so every item fails.
      if (db.isTransaction) statement(db, "ROLLBACK").run();
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}

const committers = new WeakMap<Database, GroupCommit>();

/**
 * Runs `work` inside a write transaction shared with the other work queued in the same event-loop turn, and
 * resolves once that transaction has committed (or rejects with what `work` threw, its writes rolled back).
 * `work` must be synchronous and must not open a transaction of its own.
 */
export function commitSoon<T>(db: Database, work: () => T): Promise<T> {
  let committer = committers.get(db);
  if (!committer) {
    committer = new GroupCommit(db);
    committers.set(db, committer);
  }
  return committer.run(work);
}
