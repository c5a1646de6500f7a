// One `baton serve` per SQLite store (issue 21 item 10): real processes on one real file. A second service on the
// same --db exits 1 naming the first's pid; the lock dies with its holder, so a kill -9'd service never blocks
// the next start; `:memory:` shares nothing and is exempt.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pidFileOf } from "../../../src/server/store/store-lock.js";
import { runBaton } from "../../helpers/cli.js";
import { killLeftoverServes, type ServeHandle, startServe } from "../../helpers/serve.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "baton-store-lock-"));
});
afterEach(async () => {
  await killLeftoverServes();
  await rm(dir, { recursive: true, force: true });
});

const healthy = async (serve: ServeHandle) => (await fetch(new URL("/healthz", serve.url))).status;

describe("one baton serve per --db", () => {
  it("a second service on the same store exits 1 naming the first's pid; the first keeps serving", async () => {
    const db = join(dir, "serve.sqlite");
    const first = await startServe({ db });
    const second = await runBaton(["serve", "--db", db, "--port", "0"], { timeout: 60_000 });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(`in use by another baton serve (pid ${first.child.pid})`);
    expect(second.stderr).toContain("--db");
    expect(second.stdout).toBe("");
    expect(await healthy(first)).toBe(200);
    expect(await first.stop()).toBe(0);
  });

  it("kill -9 of the holder leaves no stale lock: the next service starts on the same store", async () => {
    const db = join(dir, "serve.sqlite");
    const first = await startServe({ db });
    const deadPid = first.child.pid;
    await first.kill9();
    // The dead holder's pid record is still there; only the kernel's lock decides.
    expect(existsSync(pidFileOf(db))).toBe(true);
    await first.restart();
    expect(first.child.pid).not.toBe(deadPid);
    expect(await healthy(first)).toBe(200);
    const third = await runBaton(["serve", "--db", db, "--port", "0", "--json"], { timeout: 60_000 });
    expect(third.exitCode).toBe(1);
    expect(JSON.parse(third.stdout).error).toMatchObject({
      code: "conflict",
      message: expect.stringContaining(`(pid ${first.child.pid})`),
    });
    expect(await first.stop()).toBe(0);
    // A clean stop releases the lock too.
    const after = await startServe({ db });
    expect(await healthy(after)).toBe(200);
    expect(await after.stop()).toBe(0);
  });

  it("services on :memory: share nothing and both start", async () => {
    const one = await startServe({ db: ":memory:" });
    const two = await startServe({ db: ":memory:" });
    expect(await healthy(one)).toBe(200);
    expect(await healthy(two)).toBe(200);
    await one.stop();
    await two.stop();
  });
});
