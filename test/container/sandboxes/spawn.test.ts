// A long-lived command in a box with its streams open (what a coding agent over ACP needs), on both real drivers:
// bytes in and out while it runs, its exit status, a program that is not there, an end that takes what it started
// with it, and a stopped box that ends it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BoxProcess, CreatedBox, SandboxDriver } from "../../../src/server/adapters/sandboxes/driver.js";
import { boxName, DRIVERS, makeDriver, sandboxImage } from "../../helpers/sandbox-drivers.js";

/** Reads the process's stdout until `until` matches what it said so far. */
async function readUntil(process: BoxProcess, until: RegExp, timeoutMs = 20_000): Promise<string> {
  const reader = process.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + timeoutMs;
  try {
    while (!until.test(text)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${until} within ${timeoutMs} ms; read ${JSON.stringify(text)}`);
      const next = await Promise.race([
        reader.read(),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no ${until} in time`)), left)),
      ]);
      if (next.done) break;
      text += decoder.decode(next.value, { stream: true });
    }
  } finally {
    reader.releaseLock();
  }
  return text;
}

describe.each(DRIVERS)("a long-lived command in a %s box", (driverName) => {
  let driver: SandboxDriver;
  let box: CreatedBox;

  beforeAll(async () => {
    driver = await makeDriver(driverName, {});
    box = await driver.create({ name: boxName(), image: sandboxImage(), env: { BOX_FLAVOUR: "salty" } });
  }, 60_000);

  afterAll(async () => {
    await driver?.close();
  });

  it("takes lines on stdin and answers on stdout while it runs, with the box's and its own variables", async () => {
    const process = await driver.spawn(
      box.ref,
      [
        "bash",
        "-c",
        'echo "ready $BOX_FLAVOUR $TURN_FLAVOUR $(pwd)"; while read -r line; do echo "got $line"; done; exit 3',
      ],
      { env: { TURN_FLAVOUR: "sweet" }, cwd: "/tmp" },
    );
    expect(await readUntil(process, /ready.*\n/)).toBe("ready salty sweet /tmp\n");
    const writer = process.stdin.getWriter();
    await writer.write(new TextEncoder().encode("one\n"));
    expect(await readUntil(process, /got one\n/)).toBe("got one\n");
    await writer.write(new TextEncoder().encode("two\n"));
    expect(await readUntil(process, /got two\n/)).toBe("got two\n");
    // Closing its stdin ends the loop: the command exits with its own status.
    await writer.close();
    expect(await process.exited).toMatchObject({ code: 3, signal: null });
  });

  it("keeps the end of its stderr for a failure's reason", async () => {
    const process = await driver.spawn(box.ref, ["bash", "-c", "echo something broke >&2; exit 1"], {});
    expect((await process.exited).code).toBe(1);
    expect(process.stderrTail()).toContain("something broke");
  });

  it("says so when the program is not in the box", async () => {
    const process = await driver.spawn(box.ref, ["no-such-agent-program", "--acp"], {});
    const exit = await process.exited;
    // 127 from coreutils' timeout (Docker), 1 from bubblewrap: both say which program was missing.
    expect(exit.code).not.toBe(0);
    expect(process.stderrTail()).toMatch(/no-such-agent-program.?: No such file or directory/);
  });

  it("ends with everything it started when it is killed", async () => {
    const process = await driver.spawn(
      box.ref,
      ["bash", "-c", "sleep 300 & echo $! > /tmp/child.pid; echo started; wait"],
      {},
    );
    await readUntil(process, /started\n/);
    const started = Date.now();
    await process.kill();
    expect(Date.now() - started).toBeLessThan(10_000);
    const exit = await process.exited;
    expect(exit.code === 0).toBe(false);
    // Its background child went with it. The child's end is asynchronous to the exec's: the signal is delivered
    // and the orphan reaped by the box's init a moment later (a zombie still answers `kill -0`), so this polls
    // until a deadline instead of looking once.
    const childState = async () =>
      (
        await driver.exec(
          box.ref,
          ["bash", "-c", 'kill -0 "$(cat /tmp/child.pid)" 2>/dev/null && echo alive || echo gone'],
          { timeoutMs: 10_000 },
        )
      ).stdout.trim();
    const deadline = Date.now() + 10_000;
    let state = await childState();
    while (state !== "gone" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = await childState();
    }
    expect(state).toBe("gone");
  });

  it("ends when the box stops", async () => {
    const process = await driver.spawn(box.ref, ["bash", "-c", "echo started; sleep 300"], {});
    await readUntil(process, /started\n/);
    await driver.stop(box.ref);
    const exit = await Promise.race([
      process.exited,
      new Promise<"still running">((resolve) => setTimeout(() => resolve("still running"), 15_000)),
    ]);
    expect(exit).not.toBe("still running");
    await driver.start(box.ref);
  });
});
