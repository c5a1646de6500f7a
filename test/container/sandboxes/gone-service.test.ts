// A stopped service keeps its boxes for the next start on its state folder (issue 21 item 11). Once that folder
// is gone (a test's temporary folder, a decommissioned service), nothing can adopt them: the next driver to start
// on the machine removes them, so left-over boxes, networks and firewall rules do not pile up run after run.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SandboxDriver } from "../../../src/server/adapters/sandboxes/driver.js";
import { createDockerDriver } from "../../../src/server/adapters/sandboxes/drivers/docker.js";
import { createNamespaceDriver } from "../../../src/server/adapters/sandboxes/drivers/namespace.js";
import { resolveSandboxImage } from "../../../src/server/adapters/sandboxes/image.js";
import { boxName, DRIVERS, sandboxImage } from "../../helpers/sandbox-drivers.js";

const tmp = mkdtempSync(join(tmpdir(), "baton-sandbox-gone-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function start(driver: (typeof DRIVERS)[number], serviceDir: string): Promise<SandboxDriver> {
  const image = resolveSandboxImage();
  return driver === "docker"
    ? createDockerDriver({ endpoints: {}, serviceDir })
    : createNamespaceDriver({ endpoints: {}, rootfs: image.rootfs, batonDir: image.batonDir, serviceDir });
}

/** Whether the box still exists on the machine, asked of the engine or the file system, not of a driver. */
function boxExists(driver: (typeof DRIVERS)[number], ref: string): boolean {
  if (driver === "namespace") return existsSync(ref);
  const ids = execFileSync("docker", ["ps", "-aq", "--no-trunc", "--filter", `id=${ref}`], {
    encoding: "utf8",
  });
  return ids.trim() !== "";
}

describe.each(DRIVERS)("the %s driver and a service whose state folder is gone", (driver) => {
  it("removes that service's boxes at its next start, and keeps those of a service whose folder is there", {
    timeout: 120_000,
  }, async () => {
    const goneDir = join(tmp, `${driver}-gone`);
    const keptDir = join(tmp, `${driver}-kept`);
    const gone = await start(driver, goneDir);
    const kept = await start(driver, keptDir);
    const image = driver === "docker" ? sandboxImage() : "rootfs";
    const goneBox = await gone.create({ name: boxName(), image, env: {} });
    const keptBox = await kept.create({ name: boxName(), image, env: {} });
    await gone.detach();
    await kept.detach();
    rmSync(goneDir, { recursive: true, force: true });
    expect(boxExists(driver, goneBox.ref)).toBe(true);

    const next = await start(driver, join(tmp, `${driver}-next`));
    try {
      expect(boxExists(driver, goneBox.ref)).toBe(false);
      expect(boxExists(driver, keptBox.ref)).toBe(true);
    } finally {
      await next.close();
      const again = await start(driver, keptDir);
      await again.close();
    }
  });
});
