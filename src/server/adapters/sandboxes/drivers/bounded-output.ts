// Collects a command's output up to a bound, so a box that prints without end cannot exhaust the service.
import { Writable } from "node:stream";

export const MAX_EXEC_OUTPUT_BYTES = 8 * 1024 * 1024;

export class BoundedSink extends Writable {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly limit = MAX_EXEC_OUTPUT_BYTES) {
    super();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    const room = this.limit - this.size;
    if (room > 0) {
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      this.chunks.push(kept);
      this.size += kept.length;
    }
    if (chunk.length > room) this.truncated = true;
    callback();
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}
