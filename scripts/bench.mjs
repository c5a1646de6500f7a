// `npm run bench`: builds, then runs every bench/*.bench.mjs in turn. Each prints its own figures and ratios
// against a baseline it measures in the same run. Pass names to run a subset: `npm run bench -- naming`.
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
execFileSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "inherit", cwd: root });

const only = process.argv.slice(2);
const benches = readdirSync(join(root, "bench"))
  .filter((file) => file.endsWith(".bench.mjs"))
  .filter((file) => only.length === 0 || only.some((name) => file.includes(name)))
  .sort();

for (const file of benches) {
  console.log(`\n## ${file.replace(/\.bench\.mjs$/, "")}`);
  execFileSync(process.execPath, [join(root, "bench", file)], { stdio: "inherit", cwd: root });
}
