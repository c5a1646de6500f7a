// `baton serve`'s service: checks the flags, opens the store, applies a seed, listens, and stops cleanly when
// asked. Returns values or throws BatonErrors; src/cli/commands/serve.ts prints and maps the exit code.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Logger } from "pino";
import { parseOrThrow } from "../config/zod-error.js";
import { ConfigError, InputError, UsageError } from "../errors.js";
import { createLogger } from "../log.js";
import { SERVICE_LOG_LEVEL } from "../log-level.js";
import { AGENTS_IN_BOX, agentArgv, findAgentEntry } from "./adapters/agents/catalog.js";
import { createManualAgent } from "./adapters/agents/manual.js";
import { codehostPushOf, createPushAccessLookup } from "./adapters/codehost/push-access.js";
import {
  describeIntegrations,
  type IntegrationFlags,
  loadIntegrationSettings,
} from "./adapters/integrations/settings.js";
import type { SandboxManager } from "./adapters/sandboxes/manager.js";
import { poolOptionsOf, startSandboxManager } from "./adapters/sandboxes/start.js";
import { createServerApp } from "./app.js";
import { MAKE_TOKEN_HINT, weaknessOf } from "./domain/auth/token-strength.js";
import type { CapabilitySettings } from "./domain/capability/settings.js";
import { leaseSettingsOf } from "./domain/leases.js";
import { applySeed } from "./domain/seed/apply-seed.js";
import { type SeedDocument, SeedDocumentSchema } from "./domain/seed/schema.js";
import { weakSeedTokenRefusal, weakSeedTokens } from "./domain/seed/weak-tokens.js";
import type { AgentAcpSettings } from "./domain/tasks/service.js";
import { type BoundListener, bindListener } from "./listen/bind.js";
import { isLoopbackHost, plainHttpWarnings } from "./listen/exposure.js";
import { newInstanceIdentity } from "./primitives/instance.js";
import { parseServeFlags, type ServeFlags } from "./serve-options.js";
import { openServiceStore, type StoreWakeEvents } from "./serve-store.js";
import {
  fetchAllowingLoopback,
  LOOPBACK_CLIENT_DOCUMENTS_ENV,
  loopbackPortsOf,
} from "./surfaces/oauth/loopback-fetch.js";
import { DEFAULT_REGISTRATION_LIMITS } from "./surfaces/oauth/registration-limits.js";
import { wakePollFrom } from "./wake-settings.js";

/** The real code host's and tracker's flags (IntegrationFlags, adapters/integrations/settings.ts) come with the rest. */
export interface ServeOptions extends IntegrationFlags {
  host: string;
  port: number;
  /** The sandbox listener (`/ops/v1` only; the box forwarders' target), `host:port`; default 127.0.0.1:0. */
  opsListen?: string | undefined;
  /** The admin listener (admin API, `baton proxy`'s internal routes), `host:port`; default 127.0.0.1:0. */
  adminListen?: string | undefined;
  db?: string | undefined;
  /** PostgreSQL instead of the SQLite file (exclusive with `db`); needs `secretKeyFile`. */
  databaseUrl?: string | undefined;
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
  agent?: string | undefined;
  /** With `agent: "acp"`: the agent's program and arguments as a JSON array of strings. */
  agentAcpCommand?: string | undefined;
  workDir?: string | undefined;
  /** How long a claim on a running operation or turn lasts unrenewed (default 30; BATON_SERVE_TEST_LEASE_MS in tests). */
  leaseSeconds?: number | undefined;
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
  /** `first-last` host uids for boxes, one per box, either driver (default 200000-265535). */
  sandboxUids?: string | undefined;
  /** Ready boxes of the default image kept for new sandboxes (default 2; 0: none). */
  sandboxPoolSize?: number | undefined;
  /** The pool makes a box only while the machine has this many MiB available (default 4096). */
  sandboxPoolMinFreeMemory?: number | undefined;
  /** The service's address as browsers and platforms reach it; default: the public listener's URL. */
  publicUrl?: string | undefined;
  /** `--trusted-proxy`, repeatable: fronts (addresses or CIDR ranges) whose X-Forwarded-For names the client. */
  trustedProxy?: string[] | undefined;
  /** BATON_ADMIN_TOKEN, BATON_PROXY_TOKEN, BATON_MATCHER_TOKEN, BATON_LOG_LEVEL, XDG_DATA_HOME, HOME. */
  env: NodeJS.ProcessEnv;
  /**
   * Prints one line on the operator's console (the CLI's stderr). Without --smtp-url on a loopback-only service,
   * each dashboard sign-in link goes here instead of e-mail.
   */
  printLine?: ((line: string) => void) | undefined;
}

export interface RunningService {
  /** The public listener: `http://host:port`, the port the system picked when `--port 0`. */
  url: string;
  /** The sandbox listener (`--ops-listen`): BATON_OPS_URL of sandboxes without a driver. */
  opsUrl: string;
  /** The admin listener (`--admin-listen`); null when neither BATON_ADMIN_TOKEN nor BATON_PROXY_TOKEN is set. */
  adminUrl: string | null;
  /** One line per listener that serves plain HTTP to other machines (the CLI prints them on stderr). */
  warnings: string[];
  /** Stops accepting, answers open long-polls, lets the operation in hand commit, closes the store. */
  stop(): Promise<void>;
}

export { defaultDatabasePath } from "./serve-store.js";

export async function startService(options: ServeOptions): Promise<RunningService> {
  const flags = parseServeFlags(options);
  const { env } = options;
  const adminToken = operatorToken(env, "BATON_ADMIN_TOKEN");
  const proxyToken = operatorToken(env, "BATON_PROXY_TOKEN");
  const wakePollMs = wakePollFrom(env);
  const logger = createLogger(env, "baton-serve", SERVICE_LOG_LEVEL);
  // Read before the store opens: a missing key file or secret is a usage error naming its flag.
  const integrations = await loadIntegrationSettings(flags);
  // So is the seed: guessable member tokens on a listener other machines reach stop the start (issue 37 A2).
  const seed = flags.seed ? await readSeedFile(flags.seed) : undefined;
  const exposed = exposedListeners(flags, Boolean(adminToken || proxyToken));
  if (seed && flags.seed) {
    const refusal = weakSeedTokenRefusal(flags.seed, weakSeedTokens(seed), exposed);
    if (refusal) throw new ConfigError(refusal);
  }
  // Opened before anything listens: the SQLite file (--db, with its lock and default key) or PostgreSQL.
  const {
    db,
    secretBox,
    workRoot,
    checkoutRoot,
    close: closeStore,
  } = await openServiceStore(flags, env, wakeWarnings(logger));
  try {
    if (seed) await applySeed(db, seed, new Date(), secretBox, logger);
    const delay = Number(env.BATON_SERVE_TEST_ACTIVATION_DELAY_MS ?? 0);
    // Who this process is among the instances on the store: its claims are recorded, and logged, under this id.
    const instance = newInstanceIdentity(env);
    const lease = leaseSettingsOf(flags.leaseSeconds, env);
    // Queued items (webhook deliveries, issue replies, e-mail) are held under the same lease as operations and
    // turns (--lease-seconds); the test seam shortens only theirs, so a takeover after a kill -9 is quick to see.
    const queueLeaseMs = Number(env.BATON_SERVE_TEST_QUEUE_LEASE_MS ?? 0) || lease.leaseMs;
    const capability: CapabilitySettings = {
      smtpUrl: flags.smtpUrl,
      matcherUrl: flags.matcherUrl,
      matcherToken: env.BATON_MATCHER_TOKEN || undefined,
      dashboardUrl: flags.dashboardUrl,
      // A laptop without a mail server still reaches its dashboard: links on the console, loopback only (A3).
      printSignInLink: !flags.smtpUrl && exposed.length === 0 ? options.printLine : undefined,
    };
    const sandboxes: { current?: SandboxManager } = {};
    // Bound below, once the app exists; the app reads the sandbox listener's URL only when a request arrives.
    const listeners: { public?: BoundListener; sandbox?: BoundListener; admin?: BoundListener } = {};
    const loopbackDocumentPorts = loopbackPortsOf(env[LOOPBACK_CLIENT_DOCUMENTS_ENV]);
    const app = createServerApp({
      db,
      instance,
      lease,
      logger,
      capability,
      ...(loopbackDocumentPorts ? { oauthFetch: fetchAllowingLoopback(loopbackDocumentPorts) } : {}),
      oauthRegistrationLimits: {
        ...DEFAULT_REGISTRATION_LIMITS,
        ...(flags.oauthMaxClients ? { maxClients: flags.oauthMaxClients } : {}),
      },
      secretBox,
      integrations,
      queueLeaseMs,
      proxyToken,
      proxyUrl: flags.proxyUrl,
      trustedProxies: flags.trustedProxy,
      opsUrl: () => listeners.sandbox?.url,
      sandboxes,
      adminToken,
      exposedListeners: exposed,
      tasks: {
        workRoot,
        agentCommand: flags.agentCommand
          ? {
              argv: [resolve(flags.agentCommand)],
              timeoutMs: (flags.agentTimeout ?? DEFAULT_AGENT_TIMEOUT_S) * 1000,
            }
          : undefined,
        agentAcp: acpSettings(flags),
        // A workspace's chosen catalog agent (its settings page) has the same turn limit as the default.
        agentTimeoutMs: (flags.agentTimeout ?? DEFAULT_AGENT_TIMEOUT_S) * 1000,
        agentEnv: agentEnvironment(env),
        agent: flags.agent === "manual" ? createManualAgent() : undefined,
        // With a driver, each task's turns run in a box of the sandbox manager (made once the service listens).
        sandboxManager: flags.sandboxDriver !== "none" ? () => sandboxes.current : undefined,
      },
      ...(Number.isFinite(delay) && delay > 0 ? { activationDelayMs: delay } : {}),
      wakePollMs,
    });
    // Requests wait for app.start(): it recovers operations and turns and opens the task engine through the store,
    // which now awaits, where the synchronous store finished it before any request could be read. A request
    // handled earlier would find the engine not accepting (a 503 whose message waits for the next restart).
    let markStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    // The node server hands the handler its socket after the request (the failed-credential throttle reads the
    // peer address there): every argument goes through.
    const afterStart =
      <Rest extends unknown[]>(fetch: (request: Request, ...rest: Rest) => Response | Promise<Response>) =>
      async (request: Request, ...rest: Rest): Promise<Response> => {
        await started;
        return fetch(request, ...rest);
      };
    const closeListeners = () =>
      Promise.all(Object.values(listeners).map((listener) => listener.close())).then(() => undefined);
    try {
      listeners.public = await bindListener(
        afterStart(app.listeners.public.fetch),
        flags,
        "--host or --port",
      );
      listeners.sandbox = await bindListener(
        afterStart(app.listeners.sandbox.fetch),
        flags.opsListen,
        "--ops-listen",
      );
      // The admin listener exists only when one of its surfaces is enabled.
      if (adminToken || proxyToken)
        listeners.admin = await bindListener(
          afterStart(app.listeners.admin.fetch),
          flags.adminListen,
          "--admin-listen",
        );
    } catch (error) {
      await closeListeners();
      throw error;
    }
    const url = listeners.public.url;
    const opsUrl = listeners.sandbox.url;
    const adminUrl = listeners.admin?.url ?? null;
    capability.serviceUrl = flags.publicUrl?.replace(/\/+$/, "") ?? url;
    if (flags.sandboxDriver !== "none") {
      // Boxes reach the sandbox listener through a forwarder (loopback when it listens everywhere).
      const { hostname, port } = new URL(opsUrl);
      const bare = hostname.replace(/^\[|\]$/g, "");
      const opsHost = bare === "0.0.0.0" || bare === "::" ? "127.0.0.1" : bare;
      sandboxes.current = await startSandboxManager({
        driver: flags.sandboxDriver,
        image: flags.sandboxImage,
        // The box reaches the proxy through a forwarder: `--sandbox-proxy`, or where `--proxy-url` points.
        proxy: flags.sandboxProxy ?? (flags.proxyUrl ? new URL(flags.proxyUrl).host : undefined),
        ops: { host: opsHost, port: Number(port) },
        serviceDir: workRoot,
        checkoutRoot,
        uids: flags.sandboxUids,
        pool: poolOptionsOf(flags.sandboxPoolSize, flags.sandboxPoolMinFreeMemory),
        db,
        instance: app.deps.instance,
        relay: app.deps.relay,
        logger,
        env,
        // A repository an App installation gives: its box pushes with the installation token's placeholder.
        codehostPush: createPushAccessLookup(
          db,
          codehostPushOf(app.deps.codehostApp, integrations.codehost.app),
        ),
      }).catch(async (error: unknown) => {
        await closeListeners();
        throw new UsageError(`--sandbox-driver ${flags.sandboxDriver}: ${describe(error)}`, { cause: error });
      });
      logger.info({ driver: flags.sandboxDriver }, "sandbox manager started");
    }
    await app.start();
    markStarted();
    logger.info(
      {
        url,
        opsUrl,
        adminUrl,
        instance: instance.id,
        leaseMs: lease.leaseMs,
        ...describeIntegrations(integrations),
      },
      "listening",
    );
    return {
      url,
      opsUrl,
      adminUrl,
      warnings: plainHttpWarnings([
        { serves: "the public API", flag: "--host", host: flags.host, url },
        { serves: "the operations transport", flag: "--ops-listen", host: flags.opsListen.host, url: opsUrl },
        ...(adminUrl
          ? [{ serves: "the admin API", flag: "--admin-listen", host: flags.adminListen.host, url: adminUrl }]
          : []),
      ]),
      async stop() {
        logger.info("stopping");
        const closed = closeListeners();
        await app.stop();
        // A deploy keeps the boxes: their network and firewall rules stay, and the next start on this state folder
        // reopens their forwarders on the same ports (docs: "Deploys and restarts").
        await sandboxes.current?.detach();
        // A client holding a keep-alive connection open must not keep the service up.
        for (const listener of Object.values(listeners)) listener.closeConnections(2000);
        await closed;
        await closeStore();
      },
    };
  } catch (error) {
    await closeStore();
    throw error;
  }
}

async function readSeedFile(path: string): Promise<SeedDocument> {
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
  return parseOrThrow(SeedDocumentSchema, raw, `seed ${path}`);
}

/** The listeners other machines may reach, as their flags and addresses (`--host 0.0.0.0`); none: loopback only. */
function exposedListeners(flags: ServeFlags, adminOpens: boolean): string[] {
  const listeners = [
    { flag: "--host", host: flags.host },
    { flag: "--ops-listen", host: flags.opsListen.host },
    ...(adminOpens ? [{ flag: "--admin-listen", host: flags.adminListen.host }] : []),
  ];
  return listeners.filter(({ host }) => !isLoopbackHost(host)).map(({ flag, host }) => `${flag} ${host}`);
}

const DEFAULT_AGENT_TIMEOUT_S = 1800;

/** An operator token from the environment: unset or empty is none; a weak one stops the start (exit 1). */
function operatorToken(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const token = env[name] || undefined;
  const weakness = token === undefined ? undefined : weaknessOf(token);
  if (weakness)
    throw new ConfigError(`${name} is too weak to guard the service: ${weakness}; ${MAKE_TOKEN_HINT}`);
  return token;
}

/** PostgreSQL's wake-ups failing: long-polls still answer, by polling (BATON_WAKE_POLL_MS), so a warning. */
function wakeWarnings(logger: Logger): StoreWakeEvents {
  return {
    onListenError: (err) =>
      logger.warn({ err }, "the LISTEN connection to PostgreSQL dropped; long-polls poll until it is back"),
    onNotifyError: (err) =>
      logger.warn({ err }, "a commit's wake-up could not be sent; its long-polls find the change by polling"),
  };
}

/** What an agent program gets from the service's environment: the basics a program needs, never a credential. */
function agentEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const keep = ["PATH", "LANG", "LC_ALL", "TZ", "TMPDIR"];
  return Object.fromEntries(keep.flatMap((name) => (env[name] ? [[name, env[name]]] : [])));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `--agent acp` with its command, or a catalog agent installed in the sandbox image's agents layer. */
function acpSettings(flags: ServeFlags): AgentAcpSettings | undefined {
  const timeoutMs = (flags.agentTimeout ?? DEFAULT_AGENT_TIMEOUT_S) * 1000;
  if (flags.agentAcpCommand) return { argv: flags.agentAcpCommand, timeoutMs };
  const entry = flags.agent ? findAgentEntry(flags.agent) : undefined;
  if (!entry) return undefined;
  return { argv: agentArgv(entry, `${AGENTS_IN_BOX}/${entry.id}`), timeoutMs, entry };
}
