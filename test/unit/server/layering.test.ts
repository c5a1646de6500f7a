// The layers (docs/architecture.md "The layers and their rules"): dependency-cruiser with .dependency-cruiser.cjs
// finds nothing against them in src/ and runner/, and each rule does catch the import it forbids. The wrong
// imports are written into a throwaway tree laid out like ours, so the real one never holds one.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const run = promisify(execFile);
const DEPCRUISE = join(PROJECT_ROOT, "node_modules", ".bin", "depcruise");
const CONFIG = join(PROJECT_ROOT, ".dependency-cruiser.cjs");

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** dependency-cruiser's answer for `src` and `runner` under `cwd`: its violations, whatever its exit code. */
async function cruise(cwd: string): Promise<Violation[]> {
  const answer = await run(DEPCRUISE, ["--config", CONFIG, "--output-type", "json", "src", "runner"], {
    cwd,
    maxBuffer: 256 * 1024 * 1024,
  }).catch((failed: { stdout?: string }) => ({ stdout: failed.stdout ?? "" }));
  return JSON.parse(answer.stdout).summary.violations as Violation[];
}

/** One wrong import each (importer → imported), and the rule that must name it. */
const WRONG_IMPORTS: [rule: string, from: string, to: string][] = [
  ["runner-imports-only-the-pure-core", "runner/src/main.ts", "src/transport/wire.ts"],
  ["only-the-cli-imports-the-cli", "src/client/login.ts", "src/cli/io.ts"],
  ["proxy-never-imports-the-service", "src/proxy/lease-failures.ts", "src/server/domain/audit.ts"],
  [
    "sandbox-runtime-reaches-the-service-only-through-the-transport",
    "src/naming/assign.ts",
    "src/server/store/store.ts",
  ],
  ["client-knows-only-the-api-wire", "src/client/follow-step.ts", "src/server/domain/tasks/statuses.ts"],
  [
    "api-wire-imports-only-vocabulary",
    "src/server/surfaces/api/wire.ts",
    "src/server/domain/tasks/engine.ts",
  ],
  ["testing-uses-only-sandbox-drivers", "src/testing/index.ts", "src/server/app.ts"],
  ["surfaces-never-import-the-composition", "src/server/surfaces/pages/app.ts", "src/server/deps.ts"],
  [
    "rules-never-import-surfaces-or-composition",
    "src/server/domain/tasks/engine.ts",
    "src/server/surfaces/http/http-error.ts",
  ],
  ["rules-never-import-surfaces-or-composition", "src/server/domain/seed/apply.ts", "src/server/serve.ts"],
  [
    "adapters-never-import-rules-or-surfaces",
    "src/server/adapters/codehost/local-git.ts",
    "src/server/domain/tickets/comments.ts",
  ],
  [
    "adapters-never-import-rules-or-surfaces",
    "src/server/adapters/sandboxes/env.ts",
    "src/server/surfaces/http/node-server.ts",
  ],
  [
    "store-never-imports-rules",
    "src/server/store/migrations/0040-sealed.ts",
    "src/server/domain/secrets/box.ts",
  ],
  [
    "primitives-import-nothing-of-the-service",
    "src/server/primitives/tokens.ts",
    "src/server/store/store.ts",
  ],
];

/** Imports the layers allow: none may be reported. */
const RIGHT_IMPORTS: [from: string, to: string][] = [
  ["src/cli/commands/serve.ts", "src/server/serve.ts"],
  ["src/server/serve.ts", "src/server/surfaces/api/app.ts"],
  ["src/server/surfaces/api/app.ts", "src/server/domain/tasks/service.ts"],
  ["src/server/domain/tasks/service.ts", "src/server/adapters/agents/port.ts"],
  ["src/server/adapters/sandboxes/manager.ts", "src/server/store/sql.ts"],
  ["src/server/store/open.ts", "src/server/primitives/secret-box.ts"],
  ["src/client/api-client.ts", "src/server/surfaces/api/wire.ts"],
  ["src/server/surfaces/api/wire.ts", "src/server/domain/limits.ts"],
  ["runner/src/capture.ts", "src/evidence/record.ts"],
];

/** Two domain folders importing each other: a cycle between folders, though no module imports itself back. */
const CYCLE: [from: string, to: string][] = [
  ["src/server/domain/tasks/queue.ts", "src/server/domain/tickets/post.ts"],
  ["src/server/domain/tickets/reply.ts", "src/server/domain/tasks/context.ts"],
];

/** Writes `from` importing `to` (relative, with the .js suffix NodeNext wants), and `to` itself. */
function writeImport(root: string, from: string, to: string): void {
  for (const file of [from, to]) mkdirSync(dirname(join(root, file)), { recursive: true });
  let specifier = `${join(
    ...dirname(from)
      .split("/")
      .map(() => ".."),
    to,
  ).replace(/\.ts$/, ".js")}`;
  if (!specifier.startsWith(".")) specifier = `./${specifier}`;
  const line = `import { value as value${Math.random().toString(36).slice(2, 8)} } from "${specifier}";\n`;
  writeFileSync(join(root, from), line, { flag: "a" });
  writeFileSync(join(root, to), "export const value = 1;\n", { flag: "a" });
}

describe("the layers, enforced by dependency-cruiser", () => {
  let tree: string;
  let violations: Violation[];

  beforeAll(async () => {
    tree = mkdtempSync(join(tmpdir(), "baton-layers-"));
    writeFileSync(
      join(tree, "tsconfig.check.json"),
      JSON.stringify({
        compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", allowJs: false },
      }),
    );
    for (const [, from, to] of WRONG_IMPORTS) writeImport(tree, from, to);
    for (const [from, to] of [...RIGHT_IMPORTS, ...CYCLE]) writeImport(tree, from, to);
    violations = await cruise(tree);
  }, 60_000);

  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  it("finds no import against the layers in src/ and runner/", async () => {
    const found = await cruise(PROJECT_ROOT);
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  }, 60_000);

  it.each(WRONG_IMPORTS)("%s catches %s → %s", (rule, from, to) => {
    expect(violations.filter((v) => v.from === from && v.to === to).map((v) => v.rule.name)).toContain(rule);
  });

  it.each(RIGHT_IMPORTS)("allows %s → %s", (from, to) => {
    expect(violations.filter((v) => v.from === from && v.to === to)).toEqual([]);
  });

  it("no-cycle-between-folders catches two folders that import each other", () => {
    const cycles = violations.filter((v) => v.rule.name === "no-cycle-between-folders").map((v) => v.from);
    expect(cycles).toEqual(expect.arrayContaining(["src/server/domain/tasks", "src/server/domain/tickets"]));
  });

  it("reports nothing but the wrong imports and the cycle", () => {
    const expected = new Set(WRONG_IMPORTS.map(([rule, from, to]) => `${rule}: ${from} → ${to}`));
    const unexpected = violations
      .filter((v) => v.rule.name !== "no-cycle-between-folders")
      .map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)
      .filter((line) => !expected.has(line));
    expect(unexpected).toEqual([]);
  });
});
