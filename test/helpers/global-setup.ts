// Builds dist/ once per test run so CLI tests exercise the real compiled `baton` binary.
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export default function setup(): void {
  const root = join(import.meta.dirname, "..", "..");
  execFileSync(process.execPath, [join(root, "scripts", "build.mjs"), "--allow-type-errors"], {
    stdio: "inherit",
    cwd: root,
  });
}
