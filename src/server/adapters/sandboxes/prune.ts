// `baton admin prune-sandboxes`: removes the boxes a stopped `baton serve` left on its state folder. A graceful
// stop keeps them by design (a deploy must not end running work; the next start adopts them); this is the
// operator's way to end them when no start will follow. The driver adopts what the folder names, then removes it
// all: boxes, their network, forwarders and firewall rules.
import type { DriverName } from "./driver.js";
import { createSandboxDriver } from "./start.js";

export interface PruneOptions {
  driver: DriverName;
  /** The stopped service's state folder (`baton serve --work-dir`, default `work` beside its --db). */
  serviceDir: string;
  env: NodeJS.ProcessEnv;
}

/** Removes the service's boxes and returns their refs (container ids, or box folders for the namespace driver). */
export async function pruneServiceSandboxes(options: PruneOptions): Promise<string[]> {
  const { driver } = await createSandboxDriver({
    driver: options.driver,
    serviceDir: options.serviceDir,
    env: options.env,
    // Adoption reopens each box's forwarders towards the service's listener; nothing will answer there, and
    // they close with the driver below.
    ops: { host: "127.0.0.1", port: 9 },
  });
  try {
    return await driver.reap(new Set());
  } finally {
    await driver.close();
  }
}
