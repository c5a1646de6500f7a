// Compiles src/ to dist/ (tsc) and bundles the dependency-free startup runner (esbuild) when it exists.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name) => join(root, "node_modules", ".bin", name);

execFileSync(bin("tsc"), ["-p", join(root, "tsconfig.json")], { stdio: "inherit", cwd: root });

const runnerBuild = join(root, "runner", "build.mjs");
if (existsSync(runnerBuild)) {
  execFileSync(process.execPath, [runnerBuild], { stdio: "inherit", cwd: root });
}

// tsc does not keep the executable bit; `npx baton` and direct execution need it.
chmodSync(join(root, "dist", "src", "cli", "bin.js"), 0o755);
