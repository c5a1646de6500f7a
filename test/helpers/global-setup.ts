// Builds dist/ once per test run so CLI tests exercise the real compiled `baton` binary, and makes sure the
// Node 18 binary the runner's tests use is installed (from the npm registry, once per machine).
import { execFileSync } from "node:child_process";
import { join } from "node:path";

export default function setup(): void {
  const root = join(import.meta.dirname, "..", "..");
  execFileSync(process.execPath, [join(root, "scripts", "build.mjs"), "--allow-type-errors"], {
    stdio: "inherit",
    cwd: root,
  });
  // The sandbox image for test/container (cached by its inputs: a few seconds when nothing changed).
  execFileSync(process.execPath, [join(root, "scripts", "build-sandbox-image.mjs"), "--skip-build"], {
    stdio: "inherit",
    cwd: root,
  });
  execFileSync(process.execPath, [join(root, "scripts", "install-node18.mjs")], {
    stdio: "ignore",
    cwd: root,
  });
}
