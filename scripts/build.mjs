// Compiles src/ to dist/ (tsc), bundles the `baton` CLI (esbuild, below) and the dependency-free startup runner.
// `--allow-type-errors` (used by the test setup) still emits when tsc reports type errors: `npm run check`
// is the gate for those, and a type error in one module should not hide every other test's result.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleCli } from "./bundle-cli.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const allowTypeErrors = process.argv.includes("--allow-type-errors");

try {
  execFileSync(join(root, "node_modules", ".bin", "tsc"), ["-p", join(root, "tsconfig.json")], {
    stdio: "inherit",
    cwd: root,
  });
} catch (error) {
  if (!allowTypeErrors) throw error;
  console.error(
    "build: tsc reported type errors; emitted anyway for the tests (npm run check fails on them)",
  );
}

// dist/src/cli/bin.js becomes the bundled CLI (scripts/bundle-cli.mjs says how and why).
await bundleCli(root);

const runnerBuild = join(root, "runner", "build.mjs");
if (existsSync(runnerBuild)) {
  execFileSync(process.execPath, [runnerBuild], { stdio: "inherit", cwd: root });
}

// tsc does not keep the executable bit; `npx baton` and direct execution need it.
chmodSync(join(root, "dist", "src", "cli", "bin.js"), 0o755);
