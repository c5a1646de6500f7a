// The agent as a child process of the service (host sandboxes, no sandbox driver): its own process group, so a
// stop ends whatever it started too, and killed with the service if the service exits first.
import { Readable, Writable } from "node:stream";
import { StringDecoder } from "node:string_decoder";
import { loadExeca } from "../../processes/load-execa.js";
import { type AgentExit, createTail, type SpawnAgent } from "./agent-process.js";

const STDERR_TAIL = 4000;
/** How long a TERM gets before the group is killed. */
const KILL_GRACE_MS = 2000;

export const spawnHostAgent: SpawnAgent = async (argv, options) => {
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
  const exited = new Promise<AgentExit>((resolve) => {
    // The leader's exit, not execa's result, which waits for whatever it left holding its output.
    child.nodeChildProcess.once("exit", (code, signal) => resolve({ code, signal }));
    // A program that never started has no exit event; execa's result says why.
    void child.then((result) => {
      if (result.exitCode === undefined && !result.signal)
        resolve({ code: null, signal: null, error: result.shortMessage ?? "it did not start" });
    });
  });
  // Writes after the agent exited fail with EPIPE: the session sees the exit instead.
  child.stdin.on("error", () => undefined);
  const tail = createTail(STDERR_TAIL);
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
};
