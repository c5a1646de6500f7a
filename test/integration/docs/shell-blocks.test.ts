// Every ```sh block of README.md and docs/**/*.md runs: each file's blocks in order in one real bash session with
// a fresh HOME, data and temporary folder, `baton` on PATH through the built dist/, the checkout as working
// directory, against a service the blocks start themselves. A failure names the file, the block's line and what
// it printed. Blocks that show without running are ```text (convention: docs/architecture.md).
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { extractBlocks, loginEnvironment, runShellBlocks } from "../../helpers/doc-blocks.js";

/**
 * Fences a doc may use: `sh` runs, the rest are shown (`mermaid`: docs/architecture.md's generated layer picture).
 * A shell under another name would dodge the test.
 */
const FENCES = new Set(["sh", "text", "json", "ts", "mermaid"]);
const SESSION_DEADLINE_MS = 300_000;

const docFiles = [
  join(PROJECT_ROOT, "README.md"),
  ...readdirSync(join(PROJECT_ROOT, "docs"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".md"))
    .map((entry) => join(entry.parentPath, entry.name)),
].map((path) => relative(PROJECT_ROOT, path));

/** The secret values the fixture seeds plant: no block may print one. */
const CANARIES = [join("fixtures", "seeds", "api.json"), join("fixtures", "server", "seed.json")].flatMap(
  (seed) =>
    [...readFileSync(join(PROJECT_ROOT, seed), "utf8").matchAll(/"(canary-[^"]+)"/g)].map((m) => m[1]!),
);

describe("docs fences", () => {
  it.each(docFiles)("%s uses only ```sh (runs) and ```text, ```json, ```ts, ```mermaid (shown)", (file) => {
    const blocks = extractBlocks(readFileSync(join(PROJECT_ROOT, file), "utf8"));
    const other = blocks
      .filter((block) => !FENCES.has(block.lang))
      .map((b) => `line ${b.line}: \`\`\`${b.lang}`);
    expect(other).toEqual([]);
  });
});

describe("docs shell blocks", () => {
  // The blocks run in the checkout, whose node_modules the running tests use: an install there would replace it.
  it.each(docFiles)("%s has no ```sh block that installs packages (show those as ```text)", (file) => {
    const installs = extractBlocks(readFileSync(join(PROJECT_ROOT, file), "utf8"))
      .filter((block) => block.lang === "sh" && /\bnpm (ci|install|i|link)\b/.test(block.code))
      .map((block) => `line ${block.line}`);
    expect(installs).toEqual([]);
  });
});

describe("docs shell blocks in a login shell", () => {
  // A reader's login shell has no TMPDIR: "$TMPDIR/not-ready.log" wrote /not-ready.log (as root, without a
  // failure the session could see). mktemp works everywhere.
  it.each(docFiles)("%s has no ```sh block that uses $TMPDIR (use mktemp)", (file) => {
    const uses = extractBlocks(readFileSync(join(PROJECT_ROOT, file), "utf8"))
      .filter((block) => block.lang === "sh" && /\$\{?TMPDIR\b/.test(block.code))
      .map((block) => `line ${block.line}`);
    expect(uses).toEqual([]);
  });
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

describe("docs links", () => {
  it.each(docFiles)("%s links only to files and headings that exist", (file) => {
    const text = readFileSync(join(PROJECT_ROOT, file), "utf8");
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split("#");
      const linked = path ? join(PROJECT_ROOT, dirname(file), path) : join(PROJECT_ROOT, file);
      if (!existsSync(linked)) {
        broken.push(target!);
        continue;
      }
      if (!anchor) continue;
      const headings = [...readFileSync(linked, "utf8").matchAll(/^#+ (.*)$/gm)].map((m) => anchorOf(m[1]!));
      if (!headings.includes(anchor)) broken.push(target!);
    }
    expect(broken).toEqual([]);
  });
});

describe("the harness", () => {
  // Issue 37 A6: the blocks ran with a TMPDIR of the harness's, so a block writing "$TMPDIR/not-ready.log" passed
  // here and wrote /not-ready.log in a reader's login shell.
  it("runs the blocks in a login-like environment: no TMPDIR, no BATON_* setting, nothing of the test run", async () => {
    const run = await runShellBlocks(["```sh", "env", "```"].join("\n"), 60_000);
    expect(run.ok, run.failed?.output).toBe(true);
    const names = run.outputs[0]!.output.split("\n")
      .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
      .map((line) => line.slice(0, line.indexOf("=")));
    expect(names).toContain("HOME");
    expect(names).not.toContain("TMPDIR");
    expect(
      names.filter((name) => /^(BATON_|VITEST|npm_|NODE_)/.test(name) && name !== "BATON_SANDBOX_CACHE"),
    ).toEqual([]);
  }, 90_000);

  it("passes nothing of the machine's environment but DOCKER_HOST and BATON_SANDBOX_CACHE", () => {
    const dirs = { bin: "/b", home: "/h", data: "/d", config: "/c" };
    const env = loginEnvironment(dirs, {
      PATH: "/repo/node_modules/.bin:/usr/bin",
      USER: "dev",
      TMPDIR: "/private/tmp",
      BATON_TEST_STORE: "postgres",
      BATON_LOG_LEVEL: "debug",
      VITEST_WORKER_ID: "1",
      DOCKER_HOST: "unix:///run/docker.sock",
    });
    expect(env).toEqual({
      PATH: "/b:/usr/bin",
      HOME: "/h",
      XDG_DATA_HOME: "/d",
      XDG_CONFIG_HOME: "/c",
      LANG: "C.UTF-8",
      TERM: "dumb",
      SHELL: "/bin/bash",
      USER: "dev",
      LOGNAME: "dev",
      DOCKER_HOST: "unix:///run/docker.sock",
    });
  });

  it("reports the failing block's line and output, and stops a service a block left in the background", async () => {
    const markdown = [
      "# t",
      "```sh",
      "sleep 300 &",
      'echo "$!"',
      "```",
      "",
      "```text",
      "false",
      "```",
      "```sh",
      "echo about to fail; baton --version",
      "baton no-such-command",
      "echo never",
      "```",
      "```sh",
      "echo not reached",
      "```",
    ].join("\n");
    const run = await runShellBlocks(markdown, 60_000);
    expect(run.ok).toBe(false);
    expect(run.failed).toMatchObject({ line: 10, exitCode: 1 });
    expect(run.failed!.output).toMatch(/^about to fail\n\d+\.\d+\.\d+\n.*no-such-command/s);
    expect(run.failed!.output).not.toContain("never");
    expect(run.outputs.map((o) => o.line)).toEqual([2, 10]);
    const pid = Number(run.outputs[0]!.output.trim());
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid, 0)).toThrow(); // the background job is gone
  }, 90_000);
});

describe.each(docFiles)("%s", (file) => {
  it(
    "runs every ```sh block in order in one bash session, writing nothing into the checkout",
    async () => {
      const before = checkoutStatus();
      const run = await runShellBlocks(readFileSync(join(PROJECT_ROOT, file), "utf8"), SESSION_DEADLINE_MS);
      if (!run.ok) {
        const { line, exitCode, output } = run.failed!;
        expect.fail(
          `${file}:${line}: this \`\`\`sh block failed (exit ${exitCode}); what it printed:\n${output}`,
        );
      }
      const printed = run.outputs.map((o) => o.output).join("\n");
      for (const canary of CANARIES) expect(printed).not.toContain(canary);
      expect(checkoutStatus()).toBe(before);
    },
    SESSION_DEADLINE_MS + 60_000,
  );
});

/** Files git sees as new or changed in the checkout (blocks keep their files under mktemp -d). */
function checkoutStatus(): string {
  return execFileSync("git", ["status", "--porcelain", "--untracked-files=all"], {
    cwd: PROJECT_ROOT,
    encoding: "utf8",
  });
}
