// The agent as a running process, whatever runs it: a child of the service on the host (spawnStreaming) or a
// long-lived command in the task's box (a sandbox driver's `spawn`). The ACP session (session.ts) needs only its
// byte streams, its exit and a way to end it with everything it started.
import {
  createTail,
  type ProcessExit,
  type StreamingProcess,
  type StreamingSpawnOptions,
  spawnStreaming,
} from "../../processes/streaming-process.js";

export { createTail };
export type AgentExit = ProcessExit;
export type AgentProcess = StreamingProcess;
export type SpawnAgentOptions = StreamingSpawnOptions;

/** Starts the agent program; a program that cannot start still returns a process whose `exited` says why. */
export type SpawnAgent = (argv: readonly string[], options: SpawnAgentOptions) => Promise<AgentProcess>;

/** The agent as a child process of the service (host sandboxes, no sandbox driver). */
export const spawnHostAgent: SpawnAgent = spawnStreaming;

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
