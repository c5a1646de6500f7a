// The docs' fenced blocks, and a runner for their ```sh blocks: every ```sh block of a file runs in order in one
// real bash session (a login-like environment with a fresh HOME and data folders and no TMPDIR, `baton` on PATH
// through the built dist/, the checkout as working directory); the first one that fails ends the session. The convention is in docs/architecture.md.
import { spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { PROJECT_ROOT } from "./cli.js";

export interface DocBlock {
  /** The fence's info string: `sh`, `text`, `json`, `ts`... */
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The block's text, with the fence's indentation removed. */
  code: string;
}

/** Every fenced block of a Markdown text (fences may be indented, as inside a list item). Pure. */
export function extractBlocks(markdown: string): DocBlock[] {
  const lines = markdown.split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!;
    const body: string[] = [];
    let j = i + 1;
    while (j < lines.length && lines[j]!.trimEnd() !== `${indent}\`\`\``) {
      body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
      j++;
    }
    if (j === lines.length) throw new Error(`line ${i + 1}: a fence that is never closed`);
    blocks.push({ lang: open[2]!, line: i + 1, code: body.join("\n") });
    i = j;
  }
  return blocks;
}

export interface ShellRun {
  ok: boolean;
  /** What each block that ran printed (stdout and stderr together), in order. */
  outputs: { line: number; output: string }[];
  /** The block that failed, with its exit status, when one did. */
  failed?: { line: number; exitCode: number | string; output: string };
}

/**
 * The driver: sources each block in turn with errexit and pipefail on, so the first failing command ends the session; the EXIT
 * trap stops every job the blocks left running in the background (a service started with `&`), then the caller
 * kills the whole process group for anything a job started.
 */
const DRIVER = `set -e -o pipefail
cd "$1"
blocks=$2
baton_docs_cleanup() {
  local left
  left=$(jobs -p)
  if [ -n "$left" ]; then kill $left 2>/dev/null || true; wait 2>/dev/null || true; fi
}
trap baton_docs_cleanup EXIT
for n in $(seq 1 "$3"); do
  echo "$n" > "$blocks/current"
  . "$blocks/$n.sh" > "$blocks/$n.log" 2>&1 < /dev/null
done
echo done > "$blocks/current"
`;

/** A wrapper script that runs the built CLI with the project's Node 22, as the README's PATH section does. */
function batonWrapper(): string {
  const node = join(PROJECT_ROOT, "node_modules", ".bin", "node");
  const bin = join(PROJECT_ROOT, "dist", "src", "cli", "bin.js");
  return `#!/bin/sh\nexec "${node}" "${bin}" "$@"\n`;
}

/**
 * A newcomer's login shell, as a block meets it: what `login` or `ssh` sets (HOME, USER, LOGNAME, SHELL, PATH, LANG,
 * TERM) and the XDG folders, with no TMPDIR (a login shell has none: a block that wrote "$TMPDIR/x" wrote /x as root),
 * no BATON_* settings, no variable of the test run and no npm-provided PATH entries (the system's own node). Two of
 * the machine's own pass through: DOCKER_HOST, where this machine's Docker engine is (a newcomer's shell has it when
 * their engine needs it), and BATON_SANDBOX_CACHE, where this test run keeps the sandbox image it built (a private
 * cache when suites run side by side; without it the blocks would find the shared cache's image, not this run's).
 */
export function loginEnvironment(
  dirs: { bin: string; home: string; data: string; config: string },
  machine: NodeJS.ProcessEnv,
): Record<string, string> {
  const systemPath = (machine.PATH ?? "")
    .split(delimiter)
    .filter((entry) => !entry.includes("node_modules"))
    .join(delimiter);
  const user = machine.USER ?? machine.LOGNAME ?? "root";
  const env: Record<string, string> = {
    PATH: `${dirs.bin}${delimiter}${systemPath}`,
    HOME: dirs.home,
    XDG_DATA_HOME: dirs.data,
    XDG_CONFIG_HOME: dirs.config,
    LANG: "C.UTF-8",
    TERM: "dumb",
    SHELL: "/bin/bash",
    USER: user,
    LOGNAME: user,
  };
  if (machine.DOCKER_HOST) env.DOCKER_HOST = machine.DOCKER_HOST;
  if (machine.BATON_SANDBOX_CACHE) env.BATON_SANDBOX_CACHE = machine.BATON_SANDBOX_CACHE;
  return env;
}

/** Runs the ```sh blocks of one Markdown text in one bash session; `deadlineMs` bounds the whole session. */
export async function runShellBlocks(markdown: string, deadlineMs: number): Promise<ShellRun> {
  const blocks = extractBlocks(markdown).filter((block) => block.lang === "sh");
  const root = await mkdtemp(join(tmpdir(), "baton-docs-"));
  // Every user may pass through a newcomer's home folder's parents; mkdtemp's 0700 would not let namespace boxes
  // (a uid of their own each) reach the session's folders.
  await chmod(root, 0o711);
  try {
    const dirs = {
      blocks: join(root, "blocks"),
      bin: join(root, "bin"),
      home: join(root, "home"),
      data: join(root, "data"),
      config: join(root, "config"),
    };
    for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
    await writeFile(join(dirs.bin, "baton"), batonWrapper(), { mode: 0o755 });
    await writeFile(join(root, "driver.sh"), DRIVER);
    for (const [index, block] of blocks.entries())
      await writeFile(join(dirs.blocks, `${index + 1}.sh`), block.code);

    const env = loginEnvironment(dirs, process.env);

    const child = spawn(
      "bash",
      ["--noprofile", "--norc", join(root, "driver.sh"), PROJECT_ROOT, dirs.blocks, String(blocks.length)],
      { env, detached: true, stdio: ["ignore", "ignore", "pipe"] },
    );
    let driverErr = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      driverErr += chunk.toString("utf8");
    });
    const exitCode = await new Promise<number | string>((resolve) => {
      const timer = setTimeout(() => {
        driverErr += `\nthe session passed its deadline of ${deadlineMs / 1000} s and was killed`;
        killGroup(child.pid!, "SIGKILL");
      }, deadlineMs);
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        resolve(code ?? signal ?? -1);
      });
    });
    killGroup(child.pid!, "SIGKILL");

    const current = (await readFile(join(dirs.blocks, "current"), "utf8").catch(() => "0")).trim();
    const ran = current === "done" ? blocks.length : Number(current);
    const outputs: ShellRun["outputs"] = [];
    for (let n = 1; n <= ran; n++) {
      const output = await readFile(join(dirs.blocks, `${n}.log`), "utf8").catch(() => "");
      outputs.push({ line: blocks[n - 1]!.line, output });
    }
    if (current === "done" && exitCode === 0) return { ok: true, outputs };
    const last = outputs.at(-1);
    return {
      ok: false,
      outputs,
      failed: {
        line: last?.line ?? 0,
        exitCode,
        output: `${last?.output ?? ""}${driverErr ? `\n[bash] ${driverErr}` : ""}`,
      },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}
