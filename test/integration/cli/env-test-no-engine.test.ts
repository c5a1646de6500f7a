// Issue 21, item 17: `baton env test` on a machine where no Docker engine answers, or where the namespace driver
// has no root filesystem, ends with a message that says so and names the fixes (exit 1), never
// "unexpected failure". Real `baton` processes; the Docker client is pointed (DOCKER_HOST, which dockerode's
// modem reads) at a socket path with no engine behind it and at a loopback port nothing listens on.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBaton } from "../../helpers/cli.js";
import { FIXTURES } from "../../helpers/serve.js";

let dir: string;
let closedPort: number;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "env-test-no-engine-"));
  const server = createServer();
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  closedPort = (server.address() as { port: number }).port;
  await new Promise((closed) => server.close(closed));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const CHECKOUT = join(FIXTURES, "repos", "acme-api");

describe("baton env test with no Docker engine", () => {
  it.each([
    [
      "a socket path with no engine (ENOENT)",
      () => `unix://${dir}/no-engine.sock`,
      () => `${dir}/no-engine.sock`,
      "ENOENT",
    ],
    [
      "a loopback port nothing listens on (ECONNREFUSED)",
      () => `tcp://127.0.0.1:${closedPort}`,
      () => `127.0.0.1:${closedPort}`,
      "ECONNREFUSED",
    ],
  ])("%s: says no engine answers there and names the fixes; exit 1", async (_case, host, where, code) => {
    const run = await runBaton(["env", "test", CHECKOUT], { env: { ...process.env, DOCKER_HOST: host() } });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).not.toMatch(/unexpected failure/);
    expect(run.stderr).toContain(
      `baton: no Docker engine answers at ${where()} (from DOCKER_HOST) (${code}): `,
    );
    expect(run.stderr).toContain(
      "start one (dockerd, or systemctl start docker) or point DOCKER_HOST at one",
    );
    expect(run.stderr).toContain("baton env test --driver namespace");
  });

  it("--json gives the same message with code not_configured", async () => {
    const run = await runBaton(["env", "test", CHECKOUT, "--json"], {
      env: { ...process.env, DOCKER_HOST: `unix://${dir}/no-engine.sock` },
    });
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      error: { code: "not_configured", message: expect.stringMatching(/^no Docker engine answers at /) },
    });
  });
});

describe("baton env test --driver namespace without its root filesystem", () => {
  it("no recorded image: names BATON_SANDBOX_ROOTFS and BATON_SANDBOX_BATON_DIR (what the driver reads), not BATON_SANDBOX_IMAGE", async () => {
    const cache = join(dir, "empty-cache");
    await mkdir(cache, { recursive: true });
    const env: NodeJS.ProcessEnv = { ...process.env, BATON_SANDBOX_CACHE: cache };
    delete env.BATON_SANDBOX_ROOTFS;
    delete env.BATON_SANDBOX_BATON_DIR;
    delete env.BATON_SANDBOX_IMAGE;
    const run = await runBaton(["env", "test", CHECKOUT, "--driver", "namespace"], { env });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).not.toContain("BATON_SANDBOX_IMAGE");
    expect(run.stderr).toContain(
      `baton: no sandbox root filesystem for the namespace driver: run \`npm run sandbox-image\` (records ${join(cache, "image.json")}) or set BATON_SANDBOX_ROOTFS (the image's root filesystem) and BATON_SANDBOX_BATON_DIR (the folder holding opt/baton)\n`,
    );
  });

  it("a BATON_SANDBOX_ROOTFS that does not exist is named as such", async () => {
    const run = await runBaton(["env", "test", CHECKOUT, "--driver", "namespace"], {
      env: { ...process.env, BATON_SANDBOX_ROOTFS: join(dir, "no-rootfs"), BATON_SANDBOX_BATON_DIR: dir },
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `the namespace driver's root filesystem ${join(dir, "no-rootfs")} does not exist (from BATON_SANDBOX_ROOTFS)`,
    );
  });
});
