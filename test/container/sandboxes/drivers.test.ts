// Both drivers against the real thing (Docker Engine; bubblewrap in a network namespace): a box with a copied
// checkout and the sandbox variables, commands with a time limit, files copied out, and egress that reaches
// the given endpoint only.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreatedBox, SandboxDriver } from "../../../src/server/adapters/sandboxes/driver.js";
import { pollUntil } from "../../helpers/poll.js";
import {
  boxName,
  DRIVERS,
  hostAddress,
  makeDriver,
  sandboxImage,
  startListener,
} from "../../helpers/sandbox-drivers.js";

const FIXTURE = join(import.meta.dirname, "..", "..", "..", "fixtures", "repos", "acme-api");

describe.each(DRIVERS)("the %s driver", (driverName) => {
  let driver: SandboxDriver;
  let box: CreatedBox;
  let proxy: { server: Server; port: number };
  let open: { server: Server; port: number };
  const tmp = mkdtempSync(join(tmpdir(), "baton-sandbox-drivers-"));

  beforeAll(async () => {
    // Stands in for `baton proxy`: any loopback listener proves "the only route out is the endpoint given".
    proxy = await startListener("proxy answered");
    // A host service listening on every address: a box must not reach it.
    open = await startListener("open service answered", "0.0.0.0");
    driver = await makeDriver(driverName, { proxy: { host: "127.0.0.1", port: proxy.port } });
    box = await driver.create({
      name: boxName(),
      image: sandboxImage(),
      env: { SANDBOX_FLAVOUR: "plain value with 'quotes'" },
      checkouts: [{ hostPath: FIXTURE, repository: "acme/api" }],
    });
  });

  afterAll(async () => {
    await driver?.close();
    proxy?.server.close();
    open?.server.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  const run = (script: string, timeoutMs = 20_000) =>
    driver.exec(box.ref, ["bash", "-c", script], { timeoutMs });

  it("runs commands as the agent with the checkout copied in and the sandbox variables set", async () => {
    const result = await run(
      'id -un; echo "$SANDBOX_FLAVOUR"; cat ~/checkouts/acme/api/scripts/start.sh | head -1; touch ~/checkouts/acme/api/new-file && echo writable; stat -c "%U %a %n" ~/checkouts ~/checkouts/acme ~/checkouts/acme/api',
    );
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    // The folders above the checkout are the agent's too (another checkout can go beside it).
    expect(result.stdout.split("\n")).toEqual([
      "agent",
      "plain value with 'quotes'",
      "#!/bin/sh",
      "writable",
      "agent 755 /home/agent/checkouts",
      "agent 755 /home/agent/checkouts/acme",
      expect.stringMatching(/^agent 7[0-7][0-7] \/home\/agent\/checkouts\/acme\/api$/),
      "",
    ]);
  });

  it("passes a command's exit code and standard input through", async () => {
    const result = await driver.exec(box.ref, ["bash", "-c", "cat; exit 7"], {
      timeoutMs: 10_000,
      stdin: "in\n",
    });
    expect(result).toMatchObject({ exitCode: 7, stdout: "in\n", timedOut: false });
  });

  it("ends a command at its time limit", async () => {
    const result = await run("echo started; sleep 60", 1000);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(124);
    expect(result.stdout).toBe("started\n");
  });

  it("a stop signal ends a command and what it started in the background", async () => {
    const controller = new AbortController();
    const running = driver.exec(
      box.ref,
      ["bash", "-c", "rm -f ~/started; sleep 300 & echo $! > ~/bg.pid; echo started > ~/started; sleep 100"],
      { timeoutMs: 200_000, signal: controller.signal },
    );
    await pollUntil(
      () => run("cat ~/started 2>/dev/null"),
      (r) => r.stdout === "started\n",
      { timeoutMs: 20_000 },
    );
    controller.abort();
    // Without the signal this waits 100 s and the test's own time limit fails it.
    const result = await running;
    expect(result.exitCode).not.toBe(0);
    expect(result.timedOut).toBe(false);
    const background = await pollUntil(
      () => run('kill -0 "$(cat ~/bg.pid)" 2>/dev/null && echo alive || echo gone'),
      (r) => r.stdout === "gone\n",
      { timeoutMs: 20_000 },
    );
    expect(background.stdout).toBe("gone\n");
  });

  it("copies a folder out of the box", async () => {
    expect(
      (await run("mkdir -p ~/.baton/evidence && echo '{\"ok\":true}' > ~/.baton/evidence/acme__api.json"))
        .exitCode,
    ).toBe(0);
    await driver.copyOut(box.ref, "/home/agent/.baton/evidence", join(tmp, "out"));
    expect(readFileSync(join(tmp, "out", "evidence", "acme__api.json"), "utf8")).toBe('{"ok":true}\n');
  });

  it("reaches the proxy endpoint at the address it was given", async () => {
    const result = await run(`curl -sS -m 10 http://${box.reach.proxy}/`);
    expect(result).toMatchObject({ exitCode: 0, stdout: "proxy answered" });
  });

  it("has no other route: host services, the host's loopback and outside addresses all fail", async () => {
    const targets = [
      `http://${hostAddress()}:${open.port}/`, // a host service on 0.0.0.0
      `http://127.0.0.1:${proxy.port}/`, // the box's own loopback, not the host's
      `http://${box.reach.proxy!.split(":")[0]}:${open.port}/`, // the forwarder's address, another port
      "http://198.51.100.7/", // TEST-NET-2: anything past the host
    ];
    for (const target of targets) {
      const result = await run(`curl -sS -m 10 -o /dev/null ${target}`);
      expect({ target, exitCode: result.exitCode }).not.toEqual({ target, exitCode: 0 });
      expect(result.stdout).not.toContain("answered");
    }
  });

  it("stops, starts and removes a box; a removed box no longer exists", async () => {
    const other = await driver.create({ name: boxName(), image: sandboxImage(), env: {} });
    expect(await driver.exists(other.ref)).toBe(true);
    await driver.stop(other.ref);
    await driver.start(other.ref);
    expect((await driver.exec(other.ref, ["true"], { timeoutMs: 10_000 })).exitCode).toBe(0);
    await driver.remove(other.ref);
    expect(await driver.exists(other.ref)).toBe(false);
    await driver.remove(other.ref); // already gone: not an error
  });
});
