// Runs a command where the task's agent works: in its box (the turn's variables added by the box), or, on a host
// sandbox, on the service's machine with the agent's own variables and nothing else of the service's (the
// checkout is the agent's: its hooks and programs must not see the service's environment).

import { loadExeca } from "../../processes/load-execa.js";
import type { TurnSandbox } from "../port.js";

export interface SandboxRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface SandboxCommands {
  /** How `baton` is started there: `["baton"]` in a box, the service's own CLI on the host. */
  baton: readonly string[];
  run(
    argv: readonly string[],
    options: { env?: Record<string, string>; timeoutMs: number; signal: AbortSignal },
  ): Promise<SandboxRun>;
}

/** The output a command may leave on the service (a disclosure is far smaller). */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;

export function sandboxCommands(
  sandbox: TurnSandbox,
  host: { baton: readonly string[]; env: Readonly<Record<string, string>> },
): SandboxCommands {
  const { box } = sandbox;
  if (box)
    return {
      baton: ["baton"],
      async run(argv, options) {
        // The turn's variables (the code host's URL and git's header for it among them) under the call's own.
        const result = await box.exec(argv, {
          env: { ...sandbox.env, ...options.env },
          timeoutMs: options.timeoutMs,
          signal: options.signal,
        });
        return result.timedOut ? { ...result, exitCode: 124, stderr: `${result.stderr}\ntimed out` } : result;
      },
    };
  return {
    baton: host.baton,
    async run(argv, options) {
      const execa = await loadExeca();
      const result = await execa(argv[0]!, argv.slice(1), {
        cwd: sandbox.workdir,
        env: { ...host.env, ...options.env },
        extendEnv: false,
        stdin: "ignore",
        reject: false,
        timeout: options.timeoutMs,
        cancelSignal: options.signal,
        maxBuffer: MAX_OUTPUT_BYTES,
      });
      return {
        exitCode: result.exitCode ?? 1,
        stdout: String(result.stdout ?? ""),
        stderr: String(result.stderr ?? ""),
      };
    },
  };
}
