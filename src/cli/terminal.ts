// Reading from the person at the terminal: a secret without echo (raw mode, nothing written back but the
// prompt), a line of input, or whatever a script piped in. Prompts go to stderr so stdout stays the output.
import type { ReadStream } from "node:tty";
import { UsageError } from "../errors.js";
import type { CliIo } from "./io.js";

/** A token is far shorter; more than this on stdin is not a token. */
const MAX_PIPED_BYTES = 16 * 1024;

export function isTerminal(io: CliIo): boolean {
  return (io.stdin as Partial<ReadStream>).isTTY === true;
}

/** Reads one secret from the terminal in raw mode: nothing typed is echoed; Ctrl-C or Ctrl-D cancels. */
export function readSecretFromTerminal(io: CliIo, prompt: string): Promise<string> {
  const stdin = io.stdin as ReadStream;
  io.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = (error?: Error) => {
      stdin.removeListener("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      io.stderr.write("\n");
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString("utf8")) {
        if (char === "\r" || char === "\n") return finish();
        if (char === "\u0003" || char === "\u0004")
          return finish(new UsageError("login cancelled; nothing was saved"));
        if (char === "\u007f" || char === "\b") value = value.slice(0, -1);
        else if (char >= " ") value += char;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
  });
}

/** Reads a line typed at the terminal (echoed, e.g. a numbered choice). */
export async function readLineFromTerminal(io: CliIo, prompt: string): Promise<string> {
  const { createInterface } = await import("node:readline");
  const lines = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  try {
    return await new Promise<string>((resolve, reject) => {
      lines.question(prompt, resolve);
      lines.once("close", () => reject(new UsageError("no answer; nothing was saved")));
    });
  } finally {
    lines.close();
  }
}

/** Everything piped to stdin, up to a bound (a token is one line). */
export async function readPipedInput(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    if (size > MAX_PIPED_BYTES) {
      throw new UsageError(`more than ${MAX_PIPED_BYTES} bytes on stdin: pipe in just the access token`);
    }
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString("utf8");
}
