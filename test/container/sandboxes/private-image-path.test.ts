// A checkout cloned into a private folder (`mktemp -d` makes 0700, as CI and ci-fresh do) keeps the sandbox image
// under it, where the namespace driver's unprivileged box user cannot pass: the driver must still run commands.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { SandboxDriver } from "../../../src/server/adapters/sandboxes/driver.js";
import { createNamespaceDriver } from "../../../src/server/adapters/sandboxes/drivers/namespace.js";
import { resolveSandboxImage } from "../../../src/server/adapters/sandboxes/image.js";
import { boxName } from "../../helpers/sandbox-drivers.js";

describe("the namespace driver with its image under a private folder", () => {
  const privateDir = mkdtempSync(join(tmpdir(), "baton-sandbox-private-"));
  const stateDir = mkdtempSync(join(tmpdir(), "baton-sandbox-private-state-"));
  let driver: SandboxDriver | undefined;

  afterAll(async () => {
    await driver?.close();
    rmSync(privateDir, { recursive: true, force: true });
    rmSync(stateDir, { recursive: true, force: true });
  });

  it("runs commands as the agent although the image's folders are out of the box user's reach", async () => {
    chmodSync(privateDir, 0o700);
    chmodSync(stateDir, 0o711);
    const image = resolveSandboxImage();
    // Hard links of the built image, as a clone in a private folder would hold it (no space, no copy time).
    mkdirSync(join(privateDir, "cache"));
    execFileSync("cp", ["-al", image.rootfs, join(privateDir, "cache", "rootfs")]);
    execFileSync("cp", ["-al", image.batonDir, join(privateDir, "cache", "baton")]);
    driver = await createNamespaceDriver({
      endpoints: {},
      rootfs: join(privateDir, "cache", "rootfs"),
      batonDir: join(privateDir, "cache", "baton"),
      stateDir,
    });
    const box = await driver.create({ name: boxName(), image: "rootfs", env: {} });
    const result = await driver.exec(
      box.ref,
      ["bash", "-c", "id -un; test -d /opt/baton/dist && echo baton"],
      {
        timeoutMs: 20_000,
      },
    );
    expect(result, result.stderr).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.stdout.trim().split("\n")).toEqual(["agent", "baton"]);
  });
});
