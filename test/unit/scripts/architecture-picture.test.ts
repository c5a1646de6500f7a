// docs/architecture.md opens with the layer picture scripts/architecture-picture.mjs draws from the imports: the
// committed picture must be what the code draws today (regenerate: npm run architecture-picture), and `--check`
// must refuse one the code no longer draws. That is shown on a small tree laid out like ours, with the project's
// own rules, where a folder appears and an import breaks a rule.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ES module script without types
import { BEGIN, blockOf, END, renderPicture } from "../../../scripts/architecture-picture.mjs";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const SCRIPT = join(PROJECT_ROOT, "scripts", "architecture-picture.mjs");
const DOC = join(PROJECT_ROOT, "docs", "architecture.md");

async function picture(...args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const run = await execa(process.execPath, [SCRIPT, ...args], { reject: false, cwd: PROJECT_ROOT });
  return { exitCode: run.exitCode ?? -1, stdout: String(run.stdout), stderr: String(run.stderr) };
}

describe("the committed layer picture", () => {
  it("is what the code draws today (else: npm run architecture-picture, and commit docs/architecture.md)", async () => {
    const { exitCode, stderr } = await picture("--check");
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: "" });
  }, 60_000);

  it("shows every layer of the service and the pure core", () => {
    const block: string = blockOf(readFileSync(DOC, "utf8"));
    expect(block).toMatch(/^\n```mermaid\nflowchart TB\n[\s\S]*\n```\n$/);
    for (const group of ["composition", "surfaces", "domain", "adapters", "store", "primitives"])
      expect(block).toContain(`subgraph layer_${group}[`);
    expect(block).toContain("subgraph group_core[");
    expect(block).toContain('box_surfaces_api["api/"]');
  });
});

/** One cruised module as dependency-cruiser reports it: its imports, each valid or breaking the named rules. */
function cruised(source: string, imports: [to: string, broken?: string][]) {
  return {
    source,
    dependencies: imports.map(([resolved, broken]) =>
      broken === undefined
        ? { resolved, valid: true }
        : { resolved, valid: false, rules: [{ name: broken }] },
    ),
  };
}

describe("drawing the picture", () => {
  const modules = [
    cruised("src/cli/main.ts", [["src/server/serve.ts"], ["src/server/store/store.ts"]]),
    cruised("src/server/serve.ts", [["src/server/surfaces/api/app.ts"], ["src/server/store/store.ts"]]),
    cruised("src/server/surfaces/api/app.ts", [["src/server/domain/tasks/engine.ts"], ["node:crypto"]]),
    cruised("src/server/domain/tasks/engine.ts", [
      ["src/server/store/store.ts"],
      ["src/naming/names.ts"],
      ["src/server/surfaces/http/http-error.ts", "rules-never-import-surfaces-or-composition"],
    ]),
    cruised("src/server/surfaces/http/http-error.ts", []),
    cruised("src/server/store/store.ts", []),
    cruised("src/naming/names.ts", []),
  ];
  const core = /^src\/naming\//;

  it("draws the same picture whatever order the modules come in", () => {
    expect(renderPicture([...modules].reverse(), core)).toBe(renderPicture(modules, core));
  });

  it("leaves out an arrow other arrows imply, and draws one that breaks a rule dotted, named by the rule", () => {
    const arrows = (renderPicture(modules, core) as string)
      .split("\n")
      .filter((line) => /-->|-\.->/.test(line));
    expect(arrows).toEqual([
      "  box_src_cli --> layer_composition",
      "  layer_composition --> layer_surfaces",
      "  layer_domain --> group_core",
      "  layer_domain --> layer_store",
      '  layer_domain -.->|"breaks rules-never-import-surfaces-or-composition"| layer_surfaces',
      "  layer_surfaces --> layer_domain",
    ]);
  });
});

describe("--check on a small tree with the project's rules", () => {
  let tree: string;
  const docOf = () => readFileSync(join(tree, "docs", "architecture.md"), "utf8");
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(tree, file)), { recursive: true });
    writeFileSync(join(tree, file), text);
  };
  const check = () => picture("--check", "--root", tree);

  beforeAll(() => {
    tree = mkdtempSync(join(tmpdir(), "baton-picture-"));
    copyFileSync(join(PROJECT_ROOT, ".dependency-cruiser.cjs"), join(tree, ".dependency-cruiser.cjs"));
    write(
      "tsconfig.check.json",
      JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" } }),
    );
    write("src/cli/main.ts", 'import "../server/serve.js";\n');
    write("src/server/serve.ts", 'import "./surfaces/api/app.js";\n');
    write("src/server/surfaces/api/app.ts", 'import "../../domain/tasks/engine.js";\n');
    write(
      "src/server/domain/tasks/engine.ts",
      'import "../../store/store.js";\nimport "../../../naming/names.js";\n',
    );
    write("src/server/store/store.ts", "export const store = 1;\n");
    write("src/naming/names.ts", "export const names = 1;\n");
    write("docs/architecture.md", `# Layers\n\nBefore.\n\n${BEGIN}\n${END}\n\nAfter.\n`);
  });

  afterAll(() => rmSync(tree, { recursive: true, force: true }));

  it("refuses a stale picture, naming the doc and the command that redraws it, and changes nothing", async () => {
    const before = docOf();
    const run = await check();
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(join(tree, "docs", "architecture.md"));
    expect(run.stderr).toContain("npm run architecture-picture");
    expect(docOf()).toBe(before);
  }, 60_000);

  it("redraws the block between the markers only, after which the check passes", async () => {
    expect((await picture("--root", tree)).exitCode).toBe(0);
    const doc = docOf();
    expect(doc.startsWith(`# Layers\n\nBefore.\n\n${BEGIN}\n\`\`\`mermaid\n`)).toBe(true);
    expect(doc.endsWith(`\`\`\`\n${END}\n\nAfter.\n`)).toBe(true);
    const block: string = blockOf(doc);
    expect(block).toContain('box_surfaces_api["api/"]');
    expect(block).toContain('box_src_naming("naming/")');
    expect(block).toContain("layer_surfaces --> layer_domain");
    expect(await check()).toMatchObject({ exitCode: 0, stderr: "" });
  }, 60_000);

  it("goes stale when a folder appears, and draws it in its layer", async () => {
    write("src/server/adapters/tracker/local.ts", 'import "../../store/store.js";\n');
    write(
      "src/server/domain/tasks/engine.ts",
      'import "../../store/store.js";\nimport "../../../naming/names.js";\nimport "../../adapters/tracker/local.js";\n',
    );
    expect((await check()).exitCode).toBe(1);
    expect((await picture("--root", tree)).exitCode).toBe(0);
    const block: string = blockOf(docOf());
    expect(block).toContain('box_adapters_tracker["tracker/"]');
    expect(block).toContain("layer_domain --> layer_adapters");
    expect(block).toContain("layer_adapters --> layer_store");
    expect(block).not.toContain("layer_domain --> layer_store");
  }, 60_000);

  it("goes stale when an import breaks a rule, and draws it dotted, named by the rule", async () => {
    write(
      "src/server/adapters/tracker/local.ts",
      'import "../../store/store.js";\nimport "../../domain/tasks/engine.js";\n',
    );
    expect((await check()).exitCode).toBe(1);
    expect((await picture("--root", tree)).exitCode).toBe(0);
    expect(blockOf(docOf())).toContain(
      'layer_adapters -.->|"breaks adapters-never-import-rules-or-surfaces"| layer_domain',
    );
  }, 60_000);

  it("refuses a doc without the markers", async () => {
    write("docs/architecture.md", "# Layers\n");
    const run = await check();
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(BEGIN);
  }, 60_000);
});
