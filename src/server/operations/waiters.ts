// Long-poll support: callers wait on an operation id; the worker wakes them after every committed state change.
export class OperationWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Registers before the caller reads the row, so a change committed in between is never missed. */
  wait(
    operationId: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ): { done: Promise<void>; cancel(): void } {
    let wake!: () => void;
    const done = new Promise<void>((resolve) => {
      wake = resolve;
    });
    const set = this.waiting.get(operationId) ?? new Set();
    this.waiting.set(operationId, set);
    const cleanup = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", cleanup);
      set.delete(wake);
      if (set.size === 0 && this.waiting.get(operationId) === set) this.waiting.delete(operationId);
      wake();
    };
    const timer = setTimeout(cleanup, timeoutMs);
    signal?.addEventListener("abort", cleanup, { once: true });
    set.add(cleanup);
    return { done, cancel: cleanup };
  }

  notify(operationId: string): void {
    for (const wake of [...(this.waiting.get(operationId) ?? [])]) wake();
  }

  /** Shutdown: every long-poll answers now with the state it has. */
  wakeAll(): void {
    for (const set of [...this.waiting.values()]) for (const wake of [...set]) wake();
  }
}
