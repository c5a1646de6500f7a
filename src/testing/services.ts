// Starts `baton serve` and `baton proxy` as real child processes for a test, and stops them.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { packageRoot } from "../server/adapters/sandboxes/image.js";

export function batonBin(): string {
  return join(packageRoot(), "dist", "src", "cli", "bin.js");
}

export interface ChildService {
  child: ChildProcess;
  /** The first stdout line parsed as JSON (`--json` listening line). */
  ready: Record<string, unknown>;
  /** Everything it printed on stderr (logs), for checks. */
  stderr(): string;
  stop(): Promise<void>;
}

export async function startChild(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  deadlineMs = 60_000,
): Promise<ChildService> {
  const child = spawn(process.execPath, [batonBin(), ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`baton ${args[0]} did not start within ${deadlineMs} ms`)),
      deadlineMs,
    );
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(
        new Error(
          `baton ${args[0]} exited (${code}) before listening: ${err.trim().split("\n").slice(-5).join(" | ")}`,
        ),
      );
    });
    createInterface({ input: child.stdout! }).once("line", (first) => {
      clearTimeout(timer);
      resolve(first);
    });
  });
  let ready: Record<string, unknown>;
  try {
    ready = JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`baton ${args[0]} printed no JSON listening line first: ${line.slice(0, 200)}`);
  }
  return {
    child,
    ready,
    stderr: () => err,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
