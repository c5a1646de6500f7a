// Issue 37 A4: `npm run demo` interrupted left its Docker box running and said "demo failed: baton env show
// exited 1". A Ctrl-C signals the terminal's whole process group: the demo, its `baton serve` (which stops at
// once and keeps its boxes, as a deploy must) and whatever command a step runs. Here the demo runs in a process
// group of its own until its box exists, then the group gets SIGINT as a terminal's Ctrl-C sends it. The demo
// says "interrupted" (never "demo failed") and no container of it is left. Docker and the sandbox image are
// the machine's (as the demo's own test); dist/ is built by the test run.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { removeDemoLogs } from "./demo-logs.js";

const containerExists = (prefix: string) =>
  execFileSync("docker", ["ps", "-a", "-q", "--no-trunc", "--filter", `id=${prefix}`], {
    encoding: "utf8",
  }).trim() !== "";

describe("npm run demo interrupted with Ctrl-C", () => {
  it("once its box exists: removes the box and says interrupted", { timeout: 300_000 }, async () => {
    const demo: ChildProcess = spawn(
      process.execPath,
      [join(PROJECT_ROOT, "scripts", "demo.mjs"), "--skip-build"],
      {
        cwd: PROJECT_ROOT,
        env: { ...process.env, BATON_LOG_LEVEL: "" },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true, // a process group of its own, as a terminal's foreground job is
      },
    );
    let out = "";
    demo.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    demo.stderr!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => demo.once("exit", (code) => resolve(code)));
    const deadline = Date.now() + 240_000;
    let container: string | undefined;
    while (!container && Date.now() < deadline) {
      container = /: container ([0-9a-f]{12}) on /.exec(out)?.[1];
      if (demo.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(container, out).toBeDefined();
    // The next step talks to the service through the box, so the Ctrl-C lands while the service is in use.
    while (!/== 5\./.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(containerExists(container!)).toBe(true);

    process.kill(-demo.pid!, "SIGINT");
    const code = await exited;
    removeDemoLogs(out);

    expect(out).toContain("interrupted: stopping what the demo started");
    expect(out).not.toContain("demo failed");
    expect(code).toBe(130);
    expect(containerExists(container!)).toBe(false);
  });
});
