// Keeps a bounded, sanitised head and tail of the script's combined output and counts every byte and line. The
// sanitiser's stream (and so its index) is opened only when the first output arrives: a quiet script never
// pays for it.
import { StringDecoder } from "node:string_decoder";
import type { EvidenceOutput } from "../../src/evidence/record.js";
import type { SanitiserStream } from "../../src/evidence/stream.js";

export const HEAD_CHARS = 8 * 1024;
export const TAIL_CHARS = 24 * 1024;
const NEWLINE = 0x0a;

export class OutputCapture {
  private bytes = 0;
  private newlines = 0;
  private lastByte = NEWLINE;
  private head = "";
  private tail = "";
  private dropped = false;
  private readonly decoder = new StringDecoder("utf8");

  private stream: SanitiserStream | undefined;

  constructor(private readonly openStream: () => SanitiserStream) {}

  write(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.stream ??= this.openStream();
    this.bytes += chunk.length;
    for (let at = chunk.indexOf(NEWLINE); at !== -1; at = chunk.indexOf(NEWLINE, at + 1)) this.newlines++;
    if (chunk.length > 0) this.lastByte = chunk[chunk.length - 1] as number;
    this.keep(this.stream.push(this.decoder.write(chunk)));
  }

  private keep(text: string): void {
    if (text.length === 0) return;
    let rest = text;
    if (this.head.length < HEAD_CHARS) {
      const room = HEAD_CHARS - this.head.length;
      this.head += rest.slice(0, room);
      rest = rest.slice(room);
    }
    if (rest.length === 0) return;
    const joined = this.tail + rest;
    if (joined.length > TAIL_CHARS) this.dropped = true;
    this.tail = joined.length > TAIL_CHARS ? joined.slice(joined.length - TAIL_CHARS) : joined;
  }

  /** Flushes the sanitiser and returns the output summary. */
  finish(stoppedReadingAfterExit: boolean): EvidenceOutput {
    if (this.stream !== undefined) {
      this.keep(this.stream.push(this.decoder.end()));
      this.keep(this.stream.flush());
    }
    return {
      bytes: this.bytes,
      lines: this.newlines + (this.lastByte === NEWLINE ? 0 : 1),
      truncated: this.dropped,
      head: this.head,
      tail: this.tail,
      stoppedReadingAfterExit,
    };
  }

  get redactions(): Record<string, number> {
    return this.stream?.redactions ?? {};
  }
}
