// Where the BuildKit conformance vectors live (the same relative path in CI) and the per-file summary line.
import { join } from "node:path";
import { PROJECT_ROOT } from "../../helpers/cli.js";

export const CONFORMANCE_DIR = join(PROJECT_ROOT, "..", "shared", "conformance", "buildkit");

export interface Outcome {
  name: string;
  ok: boolean;
}

/** Prints `conformance <file>: <passed>/<total> Linux cases passed` and returns the failed case names. */
export function summarise(file: string, outcomes: readonly Outcome[]): string[] {
  const failed = outcomes.filter((o) => !o.ok).map((o) => o.name);
  console.log(
    `conformance ${file}: ${outcomes.length - failed.length}/${outcomes.length} Linux cases passed`,
  );
  return failed;
}
