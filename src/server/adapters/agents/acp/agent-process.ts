// The agent as a running process, whatever runs it: a child of the service on the host (host-process.ts) or a
// long-lived command in the task's box (a driver's streaming exec). The ACP session (session.ts) needs only its
// byte streams, its exit and a way to end it with everything it started.

export interface AgentExit {
  /** The exit status, or null when a signal ended it or it never started. */
  code: number | null;
  signal: string | null;
  /** Why it could not start (a missing program, say), when it did not. */
  error?: string;
}

export interface AgentProcess {
  /** The agent's standard input: the client's ACP messages, one JSON-RPC object a line. */
  readonly stdin: WritableStream<Uint8Array>;
  /** Its standard output: the agent's ACP messages, and nothing else. */
  readonly stdout: ReadableStream<Uint8Array>;
  /** Settles (never rejects) once the process has exited. */
  readonly exited: Promise<AgentExit>;
  /** The end of what it wrote on stderr (its log), for a failure's reason; raw, the caller sanitises it. */
  stderrTail(): string;
  /** Ends the process and its process group (TERM, then KILL after a short grace); resolves once it is gone. */
  kill(): Promise<void>;
}

export interface SpawnAgentOptions {
  /** Its working folder (the task's checkout or working folder). */
  cwd: string;
  /** Its whole environment: nothing of the service's own is added. */
  env: Readonly<Record<string, string>>;
}

/** Starts the agent program; a program that cannot start still returns a process whose `exited` says why. */
export type SpawnAgent = (argv: readonly string[], options: SpawnAgentOptions) => Promise<AgentProcess>;

/** Why an agent process ended, in words for a reason: its status and the end of its log (raw). */
export function describeExit(exit: AgentExit, stderrTail: string): string {
  const tail = stderrTail.trim().slice(-500);
  const how = exit.error
    ? `could not start: ${exit.error}`
    : exit.signal
      ? `was ended by ${exit.signal}`
      : `exited with status ${exit.code}`;
  return tail ? `${how}: ${tail}` : how;
}

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
