// One command of an image build: its output kept, and on failure an error naming the command with its last lines.
import { spawnSync } from "node:child_process";

/** Runs `command argv` and returns its stdout; throws with the last 20 lines of its output when it fails. */
export function run(command, argv, options = {}) {
  const result = spawnSync(command, argv, {
    stdio: ["ignore", "pipe", "pipe"],
    encoding: "utf8",
    ...options,
  });
  if (result.status !== 0) {
    const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.trim().split("\n").slice(-20).join("\n");
    throw new Error(`${command} ${argv.slice(0, 3).join(" ")} … failed (${result.status}):\n${output}`);
  }
  return result.stdout ?? "";
}
