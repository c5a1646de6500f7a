// What a command may touch of the outside world, passed in so commands stay testable in-process.
import type { Writable } from "node:stream";

export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function processIo(): CliIo {
  return {
    stdout: quietOnClose(process.stdout),
    stderr: quietOnClose(process.stderr),
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * A reader that goes away (`baton op get <id> | head -1`) makes the next write fail with EPIPE, emitted as an
 * 'error' event that would crash the process with a stack trace. Whoever closed the pipe has what they wanted:
 * later output is dropped (the stream is destroyed after its error), and the command finishes its work and exits
 * with its own code. There is nowhere left to report any other write error either.
 */
function quietOnClose(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  if (stream.listenerCount("error") === 0) stream.on("error", () => undefined);
  return stream;
}

/** Writes one line; commands never write partial lines. Nothing is written once the reader has gone. */
export function writeLine(stream: Writable, line = ""): void {
  if (stream.destroyed) return;
  stream.write(`${line}\n`);
}

/** The `--json` contract: exactly one JSON document and a newline on stdout. */
export function writeJson(stream: Writable, value: unknown): void {
  if (stream.destroyed) return;
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Several lines in one write: what a reader sees is whole lines, even if it stops reading half way. */
export function writeLines(stream: Writable, lines: readonly string[]): void {
  if (stream.destroyed || lines.length === 0) return;
  stream.write(`${lines.join("\n")}\n`);
}
