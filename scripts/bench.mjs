// `npm run bench`: builds, then runs every bench/*.bench.mjs in turn. Each prints its own figures and ratios
// against a baseline it measures in the same run. Pass names to run a subset: `npm run bench -- naming`.
// A name that matches no bench is refused before the build, naming the benches (a typo used to build for a
// while and then run nothing, exiting 0).
import { execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const only = process.argv.slice(2);
const all = readdirSync(join(root, "bench"))
  .filter((file) => file.endsWith(".bench.mjs"))
  .map((file) => file.replace(/\.bench\.mjs$/, ""))
  .sort();
const unknown = only.filter((name) => !all.some((bench) => bench.includes(name)));
if (unknown.length > 0) {
  console.error(
    `bench: no bench matches ${unknown.map((name) => `"${name}"`).join(", ")}; the benches: ${all.join(", ")}`,
  );
  process.exit(1);
}
const benches = all.filter((bench) => only.length === 0 || only.some((name) => bench.includes(name)));

execFileSync(process.execPath, [join(root, "scripts", "build.mjs")], { stdio: "inherit", cwd: root });

for (const bench of benches) {
  console.log(`\n## ${bench}`);
  execFileSync(process.execPath, [join(root, "bench", `${bench}.bench.mjs`)], {
    stdio: "inherit",
    cwd: root,
  });
}
