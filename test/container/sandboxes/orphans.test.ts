// A service killed with -9 leaves boxes that cannot work (their forwarders died with it): the next driver that
// starts removes them, their network or namespace and their firewall rules, and nothing of a live service.
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import type { DriverName } from "../../../src/server/adapters/sandboxes/driver.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { DRIVERS, makeDriver, sandboxImage } from "../../helpers/sandbox-drivers.js";

// Runs in a child process (the built driver modules) that makes one box and then waits to be killed.
const CHILD = `
const [driverName, image, rootfs, batonDir] = process.argv.slice(1);
const { createDockerDriver } = await import(${JSON.stringify(join(PROJECT_ROOT, "dist/src/server/adapters/sandboxes/drivers/docker.js"))});
const { createNamespaceDriver } = await import(${JSON.stringify(join(PROJECT_ROOT, "dist/src/server/adapters/sandboxes/drivers/namespace.js"))});
const { createServer } = await import("node:net");
const target = createServer().listen(0, "127.0.0.1");
await new Promise((r) => target.once("listening", r));
const endpoints = { proxy: { host: "127.0.0.1", port: target.address().port } };
const driver = driverName === "docker" ? await createDockerDriver({ endpoints }) : await createNamespaceDriver({ endpoints, rootfs, batonDir });
const box = await driver.create({ name: "baton-sandbox-orphan-" + process.pid, image, env: {} });
console.log(JSON.stringify(box));
setInterval(() => {}, 1000);
`;

const iptablesRules = () => execFileSync("iptables", ["-S", "BATON-SANDBOX-IN"], { encoding: "utf8" });

describe.each(DRIVERS)("the %s driver after a killed service", (driverName: DriverName) => {
  it("removes the dead service's boxes, network and firewall rules when it starts", async () => {
    const { resolveSandboxImage } = await import("../../../src/server/adapters/sandboxes/image.js");
    const image = resolveSandboxImage();
    const child = spawn(
      process.execPath,
      ["--input-type=module", "-e", CHILD, driverName, sandboxImage(), image.rootfs, image.batonDir],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const line = await new Promise<string>((resolve) =>
      createInterface({ input: child.stdout! }).once("line", resolve),
    );
    const box = JSON.parse(line) as { ref: string; reach: { proxy: string } };
    const port = box.reach.proxy.split(":")[1]!;
    expect(iptablesRules()).toContain(`--dport ${port} -j ACCEPT`);
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));

    const driver = await makeDriver(driverName, {}); // starting a driver reaps
    try {
      expect(await driver.exists(box.ref)).toBe(false);
      expect(iptablesRules()).not.toContain(`--dport ${port} -j ACCEPT`);
      if (driverName === "docker")
        expect(
          execFileSync("docker", ["ps", "-aq", "--filter", `id=${box.ref}`], { encoding: "utf8" }).trim(),
        ).toBe("");
      else expect(existsSync(box.ref)).toBe(false);
    } finally {
      await driver.close();
    }
  });
});
