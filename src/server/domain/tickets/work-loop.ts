// One background loop that works a durable queue in the store: `step` does one item and says whether there may be
// more; when there is none, the loop sleeps until `wake()` (new work: this instance's call, or the store's
// notification of any instance's commit) or until `dueAt()` (a retry's backoff ends). The webhook worker and the issue-reply outbox both run one. Stopping waits for the item in hand.

export interface WorkLoopOptions {
  /** Works one due item; false when there was none. Must not throw (record failures in the store instead). */
  step: () => Promise<boolean>;
  /** When the next queued item falls due (epoch ms), if any is queued. */
  dueAt: () => Promise<number | undefined>;
  now: () => number;
  /** The longest sleep, so rows written by another process are seen even when their notification was lost. */
  idleMs?: number;
  /**
   * Subscribes `wake` to the store's notification of new work (any instance's commit); resolves to the function
   * that ends the subscription. The loop then sleeps until the notification, not until its next poll.
   */
  wakeOn?: (wake: () => void) => Promise<() => Promise<void>>;
}

export class WorkLoop {
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pending = false;
  private subscription: Promise<(() => Promise<void>) | undefined> | undefined;

  constructor(private readonly options: WorkLoopOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    // A failed subscription leaves the poll: work is still found, within `idleMs`.
    this.subscription = this.options.wakeOn?.(() => this.wake()).catch(() => undefined);
    this.loop = this.run();
  }

  /** New work was queued: run now (or right after the item in hand). */
  wake(): void {
    this.pending = true;
    this.wakeUp?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeUp?.();
    await this.loop;
    await (await this.subscription)?.();
  }

  private async run(): Promise<void> {
    // Listening before the first look: work committed before it is found by that look, any after it wakes the loop.
    await this.subscription;
    while (this.running) {
      this.pending = false;
      let more = false;
      try {
        more = await this.options.step();
      } catch {
        // `step` records its own failures; a throw here (a closed store at shutdown) must not end the loop early.
        more = false;
      }
      if (!this.running) break;
      if (more || this.pending) continue;
      await this.sleep();
    }
  }

  private async sleep(): Promise<void> {
    const idle = this.options.idleMs ?? 60_000;
    const due = await this.options.dueAt();
    // Reading `dueAt` awaited the store: a wake() (or stop()) in the meantime found no sleep to end, so it is
    // honoured here rather than lost until the idle timeout.
    if (this.pending || !this.running) return;
    const ms = due === undefined ? idle : Math.max(0, Math.min(idle, due - this.options.now()));
    return new Promise((resolve) => {
      const done = () => {
        if (this.timer) clearTimeout(this.timer);
        this.timer = undefined;
        this.wakeUp = undefined;
        resolve();
      };
      this.wakeUp = done;
      this.timer = setTimeout(done, ms);
      this.timer.unref();
    });
  }
}

/** Backoff before retry `attempt` (1-based): 1 s, 2 s, 4 s, ... capped at 5 minutes. */
export const backoffMs = (attempt: number, baseMs = 1_000): number =>
  Math.min(5 * 60_000, baseMs * 2 ** Math.max(0, attempt - 1));
