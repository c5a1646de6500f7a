// A long-lived process spoken to over its standard streams (a coding agent over ACP): a child of the service in
// its own process group, so ending it ends whatever it started too, and killed with the service if the service
// exits first. The sandbox drivers run the same shape in a box (a Docker exec, a bubblewrap child).
import { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { loadExeca } from "./load-execa.js";

export interface ProcessExit {
  /** The exit status, or null when a signal ended it or it never started. */
  code: number | null;
  signal: string | null;
  /** Why it could not start (a missing program, say), when it did not. */
  error?: string;
}

export interface StreamingProcess {
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  /** Settles (never rejects) once the process has exited. */
  readonly exited: Promise<ProcessExit>;
  /** The end of what it wrote on stderr (its log), raw: the caller sanitises it. */
  stderrTail(): string;
  /** Ends the process and its process group (TERM, then KILL after a short grace); resolves once it is gone. */
  kill(): Promise<void>;
}

export interface StreamingSpawnOptions {
  cwd: string;
  /** Its whole environment: nothing of the service's own is added. */
  env: Readonly<Record<string, string>>;
}

export const STDERR_TAIL_CHARS = 4000;
/** How long a TERM gets before the group is killed. */
const KILL_GRACE_MS = 2000;

/** Keeps the last `max` characters of a stream of text. */
export function createTail(max: number): { push(text: string): void; text(): string } {
  let tail = "";
  return {
    push(text) {
      tail = (tail + text).slice(-max);
    },
    text: () => tail,
  };
}

/** Starts `argv`; a program that cannot start still returns a process whose `exited` says why. */
export async function spawnStreaming(
  argv: readonly string[],
  options: StreamingSpawnOptions,
): Promise<StreamingProcess> {
  const execa = await loadExeca();
  const child = execa(argv[0]!, argv.slice(1), {
    cwd: options.cwd,
    env: { ...options.env },
    extendEnv: false,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    buffer: false,
    reject: false,
    // Its own process group, signalled whole; still ended by signal-exit when the service exits.
    killDescendants: true,
    cleanup: true,
    forceKillAfterDelay: KILL_GRACE_MS,
  });
  const exited = new Promise<ProcessExit>((resolve) => {
    // The leader's exit, not execa's result, which waits for whatever it left holding its output.
    child.nodeChildProcess.once("exit", (code, signal) => resolve({ code, signal }));
    // A program that never started has no exit event; execa's result says why.
    void child.then((result) => {
      if (result.exitCode === undefined && !result.signal)
        resolve({ code: null, signal: null, error: result.shortMessage ?? "it did not start" });
    });
  });
  // Writes after the process exited fail with EPIPE: the reader sees the exit instead.
  child.stdin.on("error", () => undefined);
  const tail = createTail(STDERR_TAIL_CHARS);
  const decoder = new StringDecoder("utf8");
  child.stderr.on("data", (chunk: Buffer) => tail.push(decoder.write(chunk)));
  let done = false;
  void exited.then(() => {
    done = true;
  });
  return {
    stdin: Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    stdout: Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
    exited,
    stderrTail: () => tail.text(),
    async kill() {
      if (!done) {
        child.kill("SIGTERM");
        await exited;
      }
      // Whatever it left running in its group goes too.
      child.kill("SIGKILL");
    },
  };
}
