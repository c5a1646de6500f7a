// Sources a generated file in a real shell and reads back the exported environment (env -0: values may
// hold newlines), so tests compare exact values rather than trusting the renderer.
import { execFileSync } from "node:child_process";

export const SHELLS = ["bash", "dash"] as const;
export type ShellName = (typeof SHELLS)[number];

/** Runs `. <file>` in `shell` with HOME set, then returns every exported variable as a map. */
export function sourceAndReadEnv(shell: ShellName, file: string, home: string): Map<string, string> {
  const out = execFileSync(shell, ["-c", '. "$1" && exec env -0', "source", file], {
    env: { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin" },
    maxBuffer: 256 * 1024 * 1024,
  });
  const vars = new Map<string, string>();
  for (const record of out.toString("utf8").split("\0")) {
    if (record === "") continue;
    const eq = record.indexOf("=");
    vars.set(record.slice(0, eq), record.slice(eq + 1));
  }
  return vars;
}
