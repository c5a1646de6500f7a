// The two real drivers, made the same way for every container test (the image comes from the test run's global
// setup, which builds it when its inputs changed).
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { networkInterfaces } from "node:os";
import type { DriverName, HostEndpoint, SandboxDriver } from "../../src/server/adapters/sandboxes/driver.js";
import { createDockerDriver } from "../../src/server/adapters/sandboxes/drivers/docker.js";
import { createNamespaceDriver } from "../../src/server/adapters/sandboxes/drivers/namespace.js";
import { resolveSandboxImage } from "../../src/server/adapters/sandboxes/image.js";

export const DRIVERS: readonly DriverName[] = ["docker", "namespace"];

export async function makeDriver(
  name: DriverName,
  endpoints: Partial<Record<"proxy" | "ops", HostEndpoint>>,
): Promise<SandboxDriver> {
  const image = resolveSandboxImage();
  if (name === "docker") return createDockerDriver({ endpoints });
  return createNamespaceDriver({
    endpoints,
    rootfs: image.rootfs,
    batonDir: image.batonDir,
    agentsDir: image.agentsDir,
  });
}

export function sandboxImage(): string {
  const { image } = resolveSandboxImage();
  if (!image) throw new Error("the test run's global setup built no Docker image");
  return image;
}

export function boxName(): string {
  return `baton-sandbox-test-${randomBytes(4).toString("hex")}`;
}

/** An HTTP listener answering `body` on every request, on `host` (loopback unless said). */
export async function startListener(
  body: string,
  host = "127.0.0.1",
): Promise<{ server: Server; port: number }> {
  const server = createServer((_req, res) => res.end(body));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : 0 };
}

/** The host's first non-loopback IPv4 address (where a service listening on 0.0.0.0 is also reachable). */
export function hostAddress(): string {
  for (const list of Object.values(networkInterfaces()))
    for (const entry of list ?? [])
      if (entry.family === "IPv4" && !entry.internal && !entry.address.startsWith("100.72."))
        return entry.address;
  throw new Error("this machine has no non-loopback IPv4 address");
}
