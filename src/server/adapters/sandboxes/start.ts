// Makes the sandbox manager `baton serve --sandbox-driver docker|namespace` runs: the driver (forwarding boxes to
// the proxy and to the service's own address), the default image, and the sweeps' timers.
import type { Logger } from "pino";
import { UsageError } from "../../../errors.js";
import type { Store } from "../../store/store.js";
import type { DriverName, HostEndpoint, SandboxDriver } from "./driver.js";
import { resolveSandboxImage } from "./image.js";
import { SandboxManager, type SandboxManagerOptions } from "./manager.js";

export function parseHostPort(value: string, what: string): HostEndpoint {
  const match = /^(\[[0-9a-fA-F:]+\]|[^:\s]+):(\d{1,5})$/.exec(value);
  const port = Number(match?.[2]);
  if (!match || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new UsageError(`${what} must be host:port (e.g. 127.0.0.1:8081), got something else`);
  return { host: match[1]!.replace(/^\[|\]$/g, ""), port };
}

export interface SandboxDriverOptions {
  driver: DriverName;
  image?: string | undefined;
  proxy?: string | undefined;
  ops: HostEndpoint;
  env: NodeJS.ProcessEnv;
  /** The service's state folder: boxes outlive the process and the next start on it adopts them. */
  serviceDir?: string | undefined;
  /** `--sandbox-uids first-last` (both drivers: one host uid per box); default DEFAULT_SANDBOX_UIDS. */
  uids?: string | undefined;
}

/**
 * The driver (its network, forwarders and firewall rules ready) and the default image. Only the chosen driver's
 * module is loaded (the Docker client is the heavy one), so a caller can overlap this I/O with other start-up.
 */
export async function createSandboxDriver(
  options: SandboxDriverOptions,
): Promise<{ driver: SandboxDriver; defaultImage: string; imageAgents: readonly string[] }> {
  const endpoints = {
    ops: options.ops,
    ...(options.proxy ? { proxy: parseHostPort(options.proxy, "--sandbox-proxy") } : {}),
  };
  const image = resolveSandboxImage(options.env, options.driver);
  const { parseUidRange } = await import("./drivers/box-uids.js");
  const uids = options.uids ? { uids: parseUidRange(options.uids) } : {};
  let driver: SandboxDriver;
  if (options.driver === "docker") {
    const { createDockerDriver } = await import("./drivers/docker.js");
    driver = await createDockerDriver({ endpoints, serviceDir: options.serviceDir, ...uids });
  } else {
    const { createNamespaceDriver } = await import("./drivers/namespace.js");
    driver = await createNamespaceDriver({
      endpoints,
      rootfs: image.rootfs,
      batonDir: image.batonDir,
      agentsDir: image.agentsDir,
      serviceDir: options.serviceDir,
      ...uids,
    });
  }
  return {
    driver,
    defaultImage: options.image ?? image.image ?? `rootfs:${image.rootfs}`,
    // `--sandbox-image` names an image of the operator's own: what it holds is not recorded.
    imageAgents: options.image && options.image !== image.image ? [] : (image.agents ?? []),
  };
}

export interface StartSandboxManagerOptions extends SandboxDriverOptions {
  db: Store;
  /** `--checkout-root`, checked and real (checkCheckoutRoot); none: checkouts are refused. */
  checkoutRoot?: string | undefined;
  logger: Logger;
  now?: () => Date;
  timers?: boolean;
  codehostPush?: SandboxManagerOptions["codehostPush"];
  /** This instance (the service's deps.instance): the boxes it makes and adopts are recorded as its own. */
  instance?: SandboxManagerOptions["instance"];
  /** The pool of ready boxes (poolOptionsOf); none: every box is created when asked for. */
  pool?: SandboxManagerOptions["pool"];
  /** Reaches the instances that own other boxes (the service's deps.relay; PostgreSQL only). */
  relay?: SandboxManagerOptions["relay"];
}

/** Two ready boxes: what a 2-core machine makes back in the background between two tasks' starts. */
export const DEFAULT_POOL_SIZE = 2;
/** 4 GiB: the pool stops making boxes well before the running ones (a busy box: hundreds of MiB) run short. */
export const DEFAULT_POOL_MIN_FREE_MIB = 4096;

/** `--sandbox-pool-size` and `--sandbox-pool-min-free-memory` (MiB) with their defaults, as the manager takes them. */
export function poolOptionsOf(
  size: number | undefined,
  minFreeMib: number | undefined,
): NonNullable<SandboxManagerOptions["pool"]> {
  return {
    size: size ?? DEFAULT_POOL_SIZE,
    minFreeMemoryBytes: (minFreeMib ?? DEFAULT_POOL_MIN_FREE_MIB) * 1024 * 1024,
  };
}

export async function startSandboxManager(options: StartSandboxManagerOptions): Promise<SandboxManager> {
  const { driver, defaultImage, imageAgents } = await createSandboxDriver(options);
  const manager = new SandboxManager({
    db: options.db,
    driver,
    defaultImage,
    imageAgents,
    now: options.now ?? (() => new Date()),
    logger: options.logger,
    checkoutRoot: options.checkoutRoot,
    codehostPush: options.codehostPush,
    instance: options.instance,
    relay: options.relay,
    // SQLite admits one service per file (its lock file): a recorded owner is a previous run, dead by definition.
    exclusiveStore: options.db.engine === "sqlite",
    pool: options.pool,
  });
  await manager.reconcile();
  // After the reconcile: the pool's boxes start filling once the previous run's left-overs are gone.
  manager.startPool();
  if (options.timers !== false) manager.startTimers();
  return manager;
}
