// The pool of ready boxes (issue 36 point 1): for one image of one driver, a bounded number of boxes prepared
// ahead of any task (created, started, network ready; no variables, no checkout, no credential), taken one at a
// time by the manager, which only then hands the box its task's checkout and variables. Bookkeeping only: the
// driver's `prepare` and `remove` do the work, and the memory check is given, so a fake driver can test it all.
import type { CreatedBox, PreparedBoxSpec } from "./driver.js";

export interface PoolDriver {
  prepare(spec: PreparedBoxSpec): Promise<CreatedBox>;
  remove(ref: string): Promise<void>;
}

export interface BoxPoolOptions {
  driver: PoolDriver;
  /** The image the pool's boxes run (the service's default image). */
  image: string;
  /** The most boxes the pool holds, ready and being made together; 0 turns the pool off. */
  size: number;
  /**
   * Whether one more box may be made now: false while the machine's free memory is under the operator's floor
   * (`--sandbox-pool-min-free-memory`), so the pool never takes memory the running boxes may need.
   */
  memoryAllows: () => boolean;
  /** A fresh `baton-sandbox-` prefixed name for each box. */
  name: () => string;
  /** Told when a box could not be made or removed (the pool carries on: a miss creates a box). */
  onError: (error: unknown, what: string) => void;
}

export interface PooledBox extends CreatedBox {
  image: string;
}

export interface PoolStatus {
  image: string;
  size: number;
  ready: number;
  making: number;
}

export class BoxPool {
  private readonly ready: PooledBox[] = [];
  private making = 0;
  private image: string;
  private closed = false;
  /** The fill running now (one box at a time: box creation is CPU-bound on the engine and this machine is small). */
  private filling: Promise<void> | undefined;
  /** A refill was asked for while a fill ran (the memory may have come back since it looked). */
  private again = false;

  constructor(private readonly options: BoxPoolOptions) {
    this.image = options.image;
  }

  /** A ready box of `image`, out of the pool for good (never returned to it), or undefined: a miss. */
  take(image: string): PooledBox | undefined {
    const box = image === this.image ? this.ready.shift() : undefined;
    this.refill();
    return box;
  }

  /** The refs of the boxes the pool holds now (none of them any task's). */
  refs(): string[] {
    return this.ready.map((box) => box.ref);
  }

  status(): PoolStatus {
    return { image: this.image, size: this.options.size, ready: this.ready.length, making: this.making };
  }

  /** Starts filling in the background up to the size; asked during a fill, that fill looks again when done. */
  refill(): void {
    if (this.closed) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = (async () => {
      do {
        this.again = false;
        await this.fill();
      } while (this.again && !this.closed);
    })().finally(() => {
      this.filling = undefined;
    });
  }

  /** Resolves once no fill runs (tests, and the drain). */
  async settled(): Promise<void> {
    while (this.filling) await this.filling;
  }

  /** A new image: the boxes of the old one are removed, and the pool fills with the new one. */
  async retarget(image: string): Promise<void> {
    if (image === this.image) return;
    this.image = image;
    await this.removeAll(this.ready.splice(0));
    this.refill();
  }

  /** Stops filling and removes every box the pool holds (shutdown): none is left for anyone. */
  async drain(): Promise<void> {
    this.closed = true;
    await this.settled();
    await this.removeAll(this.ready.splice(0));
  }

  private async fill(): Promise<void> {
    while (
      !this.closed &&
      this.ready.length + this.making < this.options.size &&
      this.options.memoryAllows()
    ) {
      const image = this.image;
      this.making++;
      let box: CreatedBox;
      try {
        box = await this.options.driver.prepare({ name: this.options.name(), image });
      } catch (error) {
        // No retry loop on a failing engine: the next take (or start) tries again.
        this.options.onError(error, "could not prepare a pooled box");
        return;
      } finally {
        this.making--;
      }
      // Made for an image no longer wanted, or after the drain began: it never enters the pool.
      if (this.closed || image !== this.image) await this.removeAll([{ ...box, image }]);
      else this.ready.push({ ...box, image });
    }
  }

  private async removeAll(boxes: readonly PooledBox[]): Promise<void> {
    for (const box of boxes)
      await this.options.driver
        .remove(box.ref)
        .catch((error: unknown) => this.options.onError(error, "could not remove a pooled box"));
  }
}
