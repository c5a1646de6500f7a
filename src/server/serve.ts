// `baton serve`'s service: checks the flags, opens the store, applies a seed, listens, and stops cleanly when
// asked. Returns values or throws BatonErrors; src/cli/commands/serve.ts prints and maps the exit code.
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { Logger } from "pino";
import { parseOrThrow } from "../config/zod-error.js";
import { InputError, UsageError } from "../errors.js";
import { createLogger } from "../log.js";
import { SERVICE_LOG_LEVEL } from "../log-level.js";
import { createManualAgent } from "./agent/manual.js";
import { createServerApp } from "./app.js";
import type { CapabilitySettings } from "./capability/settings.js";
import { createNodeServer } from "./http/node-server.js";
import { checkCheckoutRoot } from "./sandboxes/checkout-root.js";
import type { SandboxManager } from "./sandboxes/manager.js";
import { startSandboxManager } from "./sandboxes/start.js";
import { ephemeralSecretBox, loadOrCreateSecretKey, type SecretBox } from "./secrets/index.js";
import { applySeed } from "./seed/apply-seed.js";
import { SeedDocumentSchema } from "./seed/schema.js";
import { parseServeFlags } from "./serve-options.js";
import { makeFolders, openDatabase } from "./store/open-store.js";
import type { Database } from "./store/sqlite.js";
import { lockStore, StoreInUseError } from "./store/store-lock.js";

export interface ServeOptions {
  host: string;
  port: number;
  db?: string | undefined;
  seed?: string | undefined;
  /** Capability requests: e-mail relay, model-endpoint matcher, dashboard link base. */
  smtpUrl?: string | undefined;
  matcherUrl?: string | undefined;
  dashboardUrl?: string | undefined;
  /** The task engine: an agent program (the `command` adapter; default: the scripted agent), its time limit in
   * seconds (default 1800), and the folder for sandboxes and the local code host (default: `work` beside --db). */
  agentCommand?: string | undefined;
  agentTimeout?: number | undefined;
  /** `manual`: every turn waits for an operator's answer (`baton admin task answer`) or a stop. */
  agent?: "scripted" | "manual" | undefined;
  workDir?: string | undefined;
  /** BATON_ADMIN_TOKEN, BATON_MATCHER_TOKEN, BATON_LOG_LEVEL, XDG_DATA_HOME, HOME. */
  /** `docker` or `namespace`: POST /admin/v1/sandboxes provisions real boxes; `none` (default): leases only. */
  sandboxDriver?: "docker" | "namespace" | "none" | undefined;
  /** The image new engagements get (default: the one scripts/build-sandbox-image.mjs recorded). */
  sandboxImage?: string | undefined;
  /** Where `baton proxy` listens (`host:port`); boxes reach it and nothing else outside. */
  sandboxProxy?: string | undefined;
  /** The operator's key for secret values at rest; default `<db>.key`, created 0600 at first start. */
  secretKeyFile?: string | undefined;
  /** The egress proxy sandboxes go out through, handed to them as BATON_PROXY_URL. */
  proxyUrl?: string | undefined;
  /** The folder admin sandbox requests may copy checkouts from; none: checkouts are refused. */
  checkoutRoot?: string | undefined;
  /** `first-last` host uids for namespace boxes (default 200000-265535). */
  sandboxUids?: string | undefined;
  /** BATON_ADMIN_TOKEN, BATON_PROXY_TOKEN, BATON_MATCHER_TOKEN, BATON_LOG_LEVEL, XDG_DATA_HOME, HOME. */
  env: NodeJS.ProcessEnv;
}

export interface RunningService {
  /** `http://host:port`, the port the system picked when `--port 0`. */
  url: string;
  /** Stops accepting, answers open long-polls, lets the operation in hand commit, closes the store. */
  stop(): Promise<void>;
}

export function defaultDatabasePath(env: NodeJS.ProcessEnv): string {
  const dataHome = env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share");
  return join(dataHome, "baton", "serve.sqlite");
}

export async function startService(options: ServeOptions): Promise<RunningService> {
  const flags = parseServeFlags(options);
  const { env } = options;
  const logger = createLogger(env, "baton-serve", SERVICE_LOG_LEVEL);
  const dbPath = flags.db ?? defaultDatabasePath(env);
  const cannotOpen = (error: unknown) =>
    new InputError(`cannot open the SQLite store ${dbPath}: ${describe(error)}; check --db`, {
      cause: error,
    });
  // The key sits beside the store unless the operator keeps it elsewhere; its folder is the store's.
  const secretKeyFile = flags.secretKeyFile ?? (dbPath === ":memory:" ? undefined : `${dbPath}.key`);
  const workRoot = resolve(flags.workDir ?? join(dirname(dbPath), "work"));
  // Checked before anything is made: a root holding the store, its key or the work folder would copy them.
  const checkoutRoot =
    flags.checkoutRoot === undefined
      ? undefined
      : checkCheckoutRoot(flags.checkoutRoot, [
          ...(dbPath === ":memory:" ? [] : [dirname(dbPath), dbPath]),
          ...(secretKeyFile ? [secretKeyFile] : []),
          workRoot,
        ]);
  if (dbPath !== ":memory:")
    try {
      makeFolders(dirname(dbPath));
    } catch (error) {
      throw cannotOpen(error);
    }
  // Before anything reads or writes the store: a second service on it exits here, naming the first.
  const lock = await lockStore(dbPath).catch((error: unknown) => {
    throw error instanceof StoreInUseError ? error : cannotOpen(error);
  });
  let db: Database;
  let secretBox: SecretBox;
  try {
    secretBox = secretKeyFile ? (await loadOrCreateSecretKey(secretKeyFile)).box : ephemeralSecretBox();
    db = await openDatabase(dbPath, { secretBox }).catch((error: unknown) => {
      throw cannotOpen(error);
    });
  } catch (error) {
    lock.release();
    throw error;
  }
  try {
    if (flags.seed) await applySeedFile(db, flags.seed, secretBox, logger);
    const delay = Number(env.BATON_SERVE_TEST_ACTIVATION_DELAY_MS ?? 0);
    const capability: CapabilitySettings = {
      smtpUrl: flags.smtpUrl,
      matcherUrl: flags.matcherUrl,
      matcherToken: env.BATON_MATCHER_TOKEN || undefined,
      dashboardUrl: flags.dashboardUrl,
    };
    const sandboxes: { current?: SandboxManager } = {};
    // The service's state folder: task folders, and the name of the sandbox network or box folders the next start
    // on it adopts.
    const app = createServerApp({
      db,
      logger,
      capability,
      secretBox,
      proxyToken: env.BATON_PROXY_TOKEN || undefined,
      proxyUrl: flags.proxyUrl,
      sandboxes,
      adminToken: env.BATON_ADMIN_TOKEN || undefined,
      tasks: {
        workRoot,
        agentCommand: flags.agentCommand
          ? {
              argv: [resolve(flags.agentCommand)],
              timeoutMs: (flags.agentTimeout ?? DEFAULT_AGENT_TIMEOUT_S) * 1000,
            }
          : undefined,
        agentEnv: agentEnvironment(env),
        agent: flags.agent === "manual" ? createManualAgent() : undefined,
        // With a driver, each task's turns run in a box of the sandbox manager (made once the service listens).
        sandboxManager: flags.sandboxDriver !== "none" ? () => sandboxes.current : undefined,
      },
      ...(Number.isFinite(delay) && delay > 0 ? { activationDelayMs: delay } : {}),
    });
    const server = createNodeServer(app.http.fetch);
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error) =>
        reject(
          new UsageError(
            `cannot listen on ${flags.host}:${flags.port}: ${describe(error)}; pick another --host or --port`,
            { cause: error },
          ),
        ),
      );
      server.listen(flags.port, flags.host, () => resolve());
    });
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : flags.port;
    const host = flags.host.includes(":") ? `[${flags.host}]` : flags.host;
    const url = `http://${host}:${port}`;
    capability.serviceUrl = url;
    if (flags.sandboxDriver !== "none") {
      // Boxes reach the service through a forwarder to this address (loopback when listening everywhere).
      const opsHost = flags.host === "0.0.0.0" || flags.host === "::" ? "127.0.0.1" : flags.host;
      sandboxes.current = await startSandboxManager({
        driver: flags.sandboxDriver,
        image: flags.sandboxImage,
        // The box reaches the proxy through a forwarder: `--sandbox-proxy`, or where `--proxy-url` points.
        proxy: flags.sandboxProxy ?? (flags.proxyUrl ? new URL(flags.proxyUrl).host : undefined),
        ops: { host: opsHost, port },
        serviceDir: workRoot,
        checkoutRoot,
        uids: flags.sandboxUids,
        db,
        logger,
        env,
      }).catch(async (error: unknown) => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        throw new UsageError(`--sandbox-driver ${flags.sandboxDriver}: ${describe(error)}`, { cause: error });
      });
      logger.info({ driver: flags.sandboxDriver }, "sandbox manager started");
    }
    app.start();
    logger.info({ url }, "listening");
    return {
      url,
      async stop() {
        logger.info("stopping");
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        await app.stop();
        // A deploy keeps the boxes: their network and firewall rules stay, and the next start on this state folder
        // reopens their forwarders on the same ports (docs: "Deploys and restarts").
        await sandboxes.current?.detach();
        server.closeIdleConnections();
        // A client holding a keep-alive connection open must not keep the service up.
        setTimeout(() => server.closeAllConnections(), 2000).unref();
        await closed;
        db.close();
        lock.release();
      },
    };
  } catch (error) {
    db.close();
    lock.release();
    throw error;
  }
}

async function applySeedFile(db: Database, path: string, box: SecretBox, logger: Logger): Promise<void> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(path, "utf8"));
  } catch (error) {
    throw new InputError(
      `cannot read the seed file ${path} as JSON; check --seed (the path and its syntax)`,
      {
        cause: error,
      },
    );
  }
  applySeed(db, parseOrThrow(SeedDocumentSchema, raw, `seed ${path}`), new Date(), box, logger);
}

const DEFAULT_AGENT_TIMEOUT_S = 1800;

/** What an agent program gets from the service's environment: the basics a program needs, never a credential. */
function agentEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const keep = ["PATH", "LANG", "LC_ALL", "TZ", "TMPDIR"];
  return Object.fromEntries(keep.flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
