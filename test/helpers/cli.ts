// Runs the built `baton` binary as a child process, the way an agent does.
import { join } from "node:path";
import { execa, type Options } from "execa";

export const PROJECT_ROOT = join(import.meta.dirname, "..", "..");
export const BATON_BIN = join(PROJECT_ROOT, "dist", "src", "cli", "bin.js");

export interface BatonRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function runBaton(args: readonly string[], options: Options = {}): Promise<BatonRun> {
  const result = await execa(process.execPath, [BATON_BIN, ...args], {
    reject: false,
    stripFinalNewline: false,
    ...options,
    env: { BATON_LOG_LEVEL: "", ...options.env },
  });
  return {
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout ?? ""),
    stderr: String(result.stderr ?? ""),
  };
}
