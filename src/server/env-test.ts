// `baton env test [<checkout>]` (the service side; src/cli/commands/env/test.ts prints): runs a repository's agent environment exactly as an agent meets it, in a
// throwaway sandbox: lint `.batonrc.json`, start an in-process `baton serve` (temporary SQLite file, a seed made
// from the checkout) and an in-process `baton proxy` (the box's one way out, unless told to use another or none),
// provision a box with the checkout, then inside it activate, apply the Dockerfile, run the startup runner with
// readiness, and disclose. Returns every step's outcome; the CLI prints.
import { randomBytes } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { Logger } from "pino";
import { buildLocalSeed, detectEnvironment, localRepositoryName } from "../envtest/seed.js";
import { InputError } from "../errors.js";
import { createLogger } from "../log.js";
import type { ReadinessCheck } from "../transport/wire.js";
import type { DriverName } from "./adapters/sandboxes/driver.js";
import { checkoutPathInBox } from "./adapters/sandboxes/driver.js";
import { SandboxManager } from "./adapters/sandboxes/manager.js";
import { createSandboxDriver } from "./adapters/sandboxes/start.js";
import {
  bindProxyListener,
  newProxyToken,
  type ProxyListener,
  startThrowawayProxy,
  type ThrowawayProxy,
} from "./env-test-proxy.js";
import { REHEARSAL_GRACE_MS, rehearseInBox } from "./env-test-rehearsal.js";
import { type EnvTestResult, lintCheckout, recordRehearsal, stepRunner } from "./env-test-result.js";
import { createNodeServer } from "./surfaces/http/node-server.js";

export interface EnvTestOptions {
  checkout: string;
  repository?: string | undefined;
  driver: DriverName;
  image?: string | undefined;
  /**
   * The box's egress: unset or true, a throwaway `baton proxy` started for the run (a proxy of its own could not
   * know the throwaway service's leases); false, none (the box reaches nothing but the service).
   */
  proxy?: boolean | undefined;
  timeoutSeconds: number;
  /** The runner's readiness checks after a successful startup script (none: readiness is unknown). */
  readiness?: readonly ReadinessCheck[] | undefined;
  env: NodeJS.ProcessEnv;
  /** Called as each step starts (progress on long waits). */
  onStep?: (name: string) => void;
}

export type { EnvTestEgress, EnvTestResult, EnvTestStep } from "./env-test-result.js";

export async function runEnvTest(options: EnvTestOptions): Promise<EnvTestResult> {
  const started = performance.now();
  const checkout = resolve(options.checkout);
  if (!existsSync(checkout))
    throw new InputError(`${options.checkout} does not exist; give the checkout's folder`);
  const repository = options.repository ?? localRepositoryName(basename(checkout));
  const result: EnvTestResult = {
    ok: false,
    repository,
    driver: options.driver,
    image: null,
    egress: {
      proxy: options.proxy === false ? "none" : "throwaway",
      address: null,
    },
    steps: [],
    batonrcProblems: [],
    evidence: null,
    disclosure: null,
    durationMs: 0,
  };
  const step = stepRunner(result, options.onStep);
  const finish = () => {
    result.durationMs = Math.round(performance.now() - started);
    return result;
  };

  const lint = await step("lint", () => lintCheckout(result, checkout));
  if (!lint.ok) return finish();

  const logger = createLogger(options.env, "baton-env-test");
  // The service's listeners come first (the driver's forwarders point at the sandbox one, the proxy calls the
  // admin one); requests wait until the service is made. Nothing needs its public listener.
  type Fetch = (request: Request) => Response | Promise<Response>;
  let serve!: (listeners: { sandbox: { fetch: Fetch }; admin: { fetch: Fetch } }) => void;
  const serviceListeners = new Promise<Parameters<typeof serve>[0]>((ready) => {
    serve = ready;
  });
  const server = createNodeServer(async (request) => (await serviceListeners).sandbox.fetch(request));
  const adminServer = createNodeServer(async (request) => (await serviceListeners).admin.fetch(request));
  const closeServers = () =>
    Promise.all(
      [server, adminServer].map(
        (listening) => new Promise<void>((closed) => listening.close(() => closed())),
      ),
    );
  const portOf = (listening: typeof server) => {
    const address = listening.address();
    return typeof address === "object" && address ? address.port : 0;
  };
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
  const port = portOf(server);
  // The throwaway proxy's port is bound now, so the driver can forward to it while the proxy starts.
  let proxyListener: ProxyListener | undefined;
  const proxyToken = options.proxy === false ? undefined : newProxyToken();
  try {
    if (proxyToken) {
      await new Promise<void>((ready) => adminServer.listen(0, "127.0.0.1", ready));
      proxyListener = await bindProxyListener();
    }
  } catch (error) {
    await closeServers();
    throw error;
  }
  result.egress.address = proxyListener?.address ?? null;
  // The driver's I/O (the Docker network, firewall rules, forwarders) runs while the service's and the proxy's
  // modules load and the store opens and the proxy makes its CA: the slowest parts of start-up overlap.
  const drivers = createSandboxDriver({
    driver: options.driver,
    image: options.image,
    proxy: result.egress.address ?? undefined,
    ops: { host: "127.0.0.1", port },
    env: options.env,
  });
  const services = startThrowawayService({
    repository,
    checkout,
    readiness: options.readiness ?? [],
    proxyToken,
    logger,
  });
  const proxies: Promise<ThrowawayProxy | undefined> = proxyListener
    ? startThrowawayProxy({
        listener: proxyListener,
        serveUrl: `http://127.0.0.1:${portOf(adminServer)}`,
        token: proxyToken!,
        logger,
      })
    : Promise.resolve(undefined);
  const [madeDriver, madeService, madeProxy] = await Promise.allSettled([drivers, services, proxies]);
  const service = madeService.status === "fulfilled" ? madeService.value : undefined;
  const driver = madeDriver.status === "fulfilled" ? madeDriver.value : undefined;
  const proxy = madeProxy.status === "fulfilled" ? madeProxy.value : undefined;
  let manager: SandboxManager | undefined;
  try {
    if (!service || !driver || madeProxy.status === "rejected")
      throw firstRejection([madeDriver, madeService, madeProxy]);
    serve(service.app.listeners);
    manager = new SandboxManager({
      db: service.db,
      driver: driver.driver,
      defaultImage: driver.defaultImage,
      now: () => new Date(),
      logger,
      // The one checkout this run was given is the only folder a box may be made from.
      checkoutRoot: realpathSync(checkout),
    });
    service.sandboxes.current = manager;
    const owner = { workspaceId: "ws_local", engagementId: "env-test" };
    const provisioned = await step("provision", async () => {
      const made = await manager!.provision({ ...owner, repository, checkout });
      result.image = made.box.image;
      return { ok: true, value: made };
    });
    const sandboxId = provisioned.value!.box.sandboxId;
    // The agent's four steps run in one `baton env rehearse` process in the box (one Node start-up, not four);
    // it reports each step as it starts and ends.
    const outcomes = await rehearseInBox({
      start: () =>
        manager!.spawn(
          sandboxId,
          owner,
          ["baton", "env", "rehearse", repository, "--timeout", String(options.timeoutSeconds)],
          { cwd: checkoutPathInBox(repository) },
        ),
      // A step that reports nothing for its own time limit and a grace is stopped.
      silenceLimitMs: options.timeoutSeconds * 1000 + REHEARSAL_GRACE_MS,
      onStarted: (name) => options.onStep?.(name),
      // What the proxy refused during the startup is in the disclosure.
      beforeDisclose: async () => {
        await proxy?.flushRefusals();
      },
    });
    recordRehearsal(result, outcomes);
    return finish();
  } finally {
    // Everything ends together: the service's work, the box and its network, the proxy, the listener.
    server.closeAllConnections();
    adminServer.closeAllConnections();
    await Promise.allSettled([
      service?.app.stop(),
      manager ? manager.close() : driver?.driver.close(),
      proxy?.stop(),
      closeServers(),
    ]);
    await service?.db.close();
    service?.database.close();
  }
}

/**
 * The throwaway `baton serve` (its modules loaded only now): an in-memory store (nothing of it outlives the run),
 * a seed made from the checkout, and secret values sealed under a key that dies with it.
 */
async function startThrowawayService(input: {
  repository: string;
  checkout: string;
  readiness: readonly ReadinessCheck[];
  /** BATON_PROXY_TOKEN shared with the throwaway proxy (its lease and refusal routes); none without one. */
  proxyToken: string | undefined;
  logger: Logger;
}) {
  const [
    { createServerApp },
    { openDatabase },
    { SqliteStore },
    { applySeed },
    { SeedDocumentSchema },
    { ephemeralSecretBox },
  ] = await Promise.all([
    import("./app.js"),
    import("./store/open-store.js"),
    import("./store/sqlite-store.js"),
    import("./domain/seed/apply-seed.js"),
    import("./domain/seed/schema.js"),
    import("./domain/secrets/index.js"),
  ]);
  const database = await openDatabase(":memory:");
  const db = new SqliteStore(database);
  const secretBox = ephemeralSecretBox();
  await applySeed(
    db,
    SeedDocumentSchema.parse(
      buildLocalSeed({
        workspaceId: "ws_local",
        repository: input.repository,
        environment: {
          ...detectEnvironment((path) => existsSync(join(input.checkout, path))),
          readiness: { checks: [...input.readiness] },
        },
      }),
    ),
    new Date(),
    secretBox,
  );
  const sandboxes: { current?: SandboxManager } = {};
  const app = createServerApp({
    db,
    logger: input.logger,
    adminToken: randomBytes(32).toString("hex"),
    sandboxes,
    secretBox,
    proxyToken: input.proxyToken,
  });
  await app.start();
  return { db, database, app, sandboxes };
}

function firstRejection(settled: readonly PromiseSettledResult<unknown>[]): unknown {
  return settled.find((made): made is PromiseRejectedResult => made.status === "rejected")?.reason;
}
