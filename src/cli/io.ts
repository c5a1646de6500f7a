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
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Writes one line; commands never write partial lines. */
export function writeLine(stream: Writable, line = ""): void {
  stream.write(`${line}\n`);
}

/** The `--json` contract: exactly one JSON document and a newline on stdout. */
export function writeJson(stream: Writable, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}
