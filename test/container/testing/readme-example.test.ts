// The `baton/testing` example of docs/testing.md, type-checked and run as written, the way a repository's own CI would: tsc
// and its own vitest process in a project whose node_modules holds baton (so `baton/testing` resolves through
// package.json "exports" to the built dist/ and its declarations, never to src/), with the fixture repository as
// the checkout (process.cwd()).
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { FIXTURES } from "../../helpers/serve.js";

const CANARY = "canary-readme-npm-token-7f3c91e2-never-print";
const TSCONFIG = {
  compilerOptions: {
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2023",
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
  },
  files: ["sandbox.test.ts"],
};

/** The first ```ts block under docs/testing.md's "## `baton/testing`" heading. */
function readmeExample(): string {
  const readme = readFileSync(join(PROJECT_ROOT, "docs", "testing.md"), "utf8");
  const section = readme.slice(readme.indexOf("## `baton/testing`"));
  const block = /```ts\n([\s\S]*?)\n```/.exec(section);
  if (!block?.[1]) throw new Error("docs/testing.md has no ```ts block under ## `baton/testing`");
  return block[1];
}

const dir = mkdtempSync(join(tmpdir(), "baton-readme-example-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("the README's baton/testing example type-checks and passes as written, importing baton/testing by its package name", async () => {
  const example = readmeExample();
  expect(example).toContain('from "baton/testing"');
  // The user's project: baton and vitest installed beside it (linked, as npm link would), the checkout itself
  // the fixture repository. node_modules sits one folder up so the checkout copied into the box stays as is.
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(PROJECT_ROOT, join(dir, "node_modules", "baton"), "dir");
  symlinkSync(join(PROJECT_ROOT, "node_modules", "vitest"), join(dir, "node_modules", "vitest"), "dir");
  mkdirSync(join(dir, "node_modules", "@types"));
  symlinkSync(
    join(PROJECT_ROOT, "node_modules", "@types", "node"),
    join(dir, "node_modules", "@types", "node"),
  );
  const project = join(dir, "acme-api");
  cpSync(join(FIXTURES, "repos", "acme-api"), project, { recursive: true });
  writeFileSync(join(project, "sandbox.test.ts"), example);
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify(TSCONFIG));

  // The helpers' results are typed: `evidence.outcome`, `markdown` and the rest must exist in the declarations.
  const typecheck = await execa(join(PROJECT_ROOT, "node_modules", ".bin", "tsc"), ["-p", "tsconfig.json"], {
    cwd: project,
    reject: false,
    all: true,
  });
  expect(typecheck.all).toBe("");
  expect(typecheck.exitCode).toBe(0);

  // The outer run's VITEST_* variables would tell the inner vitest it is a worker of this one.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")));
  const run = await execa(
    process.execPath,
    [join(PROJECT_ROOT, "node_modules", "vitest", "vitest.mjs"), "run", "sandbox.test.ts"],
    {
      cwd: project,
      env: { ...env, NPM_TOKEN: CANARY, NO_COLOR: "1" },
      extendEnv: false,
      reject: false,
      all: true,
      timeout: 170_000,
    },
  );
  expect(run.all).toMatch(/Tests\s+1 passed \(1\)/);
  expect(run.exitCode).toBe(0);
  expect(run.all).not.toContain(CANARY);
}, 180_000);
