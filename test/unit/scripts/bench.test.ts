// scripts/bench.mjs (`npm run bench -- <names>`): a name that matches no bench is refused before the build, naming
// the benches, and docs/benchmarks.md lists every bench. The script runs from a copy in a temporary folder whose
// scripts/build.mjs only leaves a mark: the real build takes minutes and would hide whether the refusal came first.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const BENCHES = readdirSync(join(PROJECT_ROOT, "bench"))
  .filter((file) => file.endsWith(".bench.mjs"))
  .map((file) => file.replace(/\.bench\.mjs$/, ""))
  .sort();

let folder: string;
afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** A copy of the project's bench runner beside a build that marks it ran and benches that mark they ran. */
function benchProject(): string {
  folder = mkdtempSync(join(tmpdir(), "baton-bench-script-"));
  mkdirSync(join(folder, "scripts"));
  mkdirSync(join(folder, "bench"));
  copyFileSync(join(PROJECT_ROOT, "scripts", "bench.mjs"), join(folder, "scripts", "bench.mjs"));
  const mark = (name: string) =>
    `import { appendFileSync } from "node:fs"; appendFileSync(${JSON.stringify(join(folder, "ran"))}, "${name}\\n");\n`;
  writeFileSync(join(folder, "scripts", "build.mjs"), mark("build"));
  for (const bench of ["naming", "server", "store", "store-serve"]) {
    writeFileSync(join(folder, "bench", `${bench}.bench.mjs`), mark(bench));
  }
  writeFileSync(join(folder, "bench", "lib.mjs"), "");
  return folder;
}

const ran = () => (existsSync(join(folder, "ran")) ? readFileSync(join(folder, "ran"), "utf8") : "");

describe("scripts/bench.mjs", () => {
  it.each([[["nosuch"]], [["server", "typo"]]])(
    "%j: a name that matches no bench exits 1 naming the benches, before building",
    async (names) => {
      const project = benchProject();
      const run = await execa(process.execPath, [join(project, "scripts", "bench.mjs"), ...names], {
        reject: false,
      });
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain(`no bench matches "${names.at(-1)}"`);
      expect(run.stderr).toContain("the benches: naming, server, store, store-serve");
      expect(ran()).toBe("");
    },
  );

  it("builds, then runs the benches whose names hold a given name", async () => {
    const project = benchProject();
    const run = await execa(process.execPath, [join(project, "scripts", "bench.mjs"), "serv"], {
      reject: false,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(ran()).toBe("build\nserver\nstore-serve\n");
  });
});

describe("docs/benchmarks.md", () => {
  // The opening paragraph's list, `npm run bench -- <name>` one (`activation`, …): every bench is in it.
  const docs = readFileSync(join(PROJECT_ROOT, "docs", "benchmarks.md"), "utf8");
  const list = /`npm run bench -- <name>` one \(([^)]*)\)/.exec(docs)?.[1] ?? "";
  const listed = new Set([...list.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]));

  it("has the list of names", () => {
    expect(listed.size).toBeGreaterThan(5);
  });

  it.each(BENCHES)("lists the bench %s", (bench) => {
    expect(listed).toContain(bench);
  });
});
