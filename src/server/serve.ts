// `baton serve`: opens the store, applies a seed, listens, prints where, and stops cleanly on SIGTERM/SIGINT.
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { EXIT, type ExitCode } from "../cli/exit-codes.js";
import { type CliIo, writeLine } from "../cli/io.js";
import { parseOrThrow } from "../config/zod-error.js";
import { InputError, UsageError } from "../errors.js";
import { createLogger } from "../log.js";
import { createServerApp } from "./app.js";
import type { CapabilitySettings } from "./capability/settings.js";
import { createNodeServer } from "./node-adapter.js";
import { applySeed } from "./seed/apply-seed.js";
import { SeedDocumentSchema } from "./seed/schema.js";
import { openDatabase } from "./store/open-store.js";

export interface ServeOptions {
  host: string;
  port: number;
  db?: string | undefined;
  seed?: string | undefined;
  json: boolean;
  io: CliIo;
  /** Capability requests: e-mail relay, model-endpoint matcher, dashboard link base. */
  smtpUrl?: string | undefined;
  matcherUrl?: string | undefined;
  dashboardUrl?: string | undefined;
  /** Resolves to stop the service; defaults to SIGTERM or SIGINT. */
  stopSignal?: Promise<unknown>;
}

export function defaultDatabasePath(env: NodeJS.ProcessEnv): string {
  const dataHome = env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share");
  return join(dataHome, "baton", "serve.sqlite");
}

export async function runServe(options: ServeOptions): Promise<ExitCode> {
  const { io } = options;
  const logger = createLogger(io.env, "baton-serve");
  // Listen for SIGTERM/SIGINT before anything else: a stop that arrives during start-up still stops cleanly.
  const stopRequested = options.stopSignal ?? onceSignalled();
  const dbPath = options.db ?? defaultDatabasePath(io.env);
  const db = await openDatabase(dbPath).catch((error: unknown) => {
    throw new InputError(`cannot open the SQLite store ${dbPath}: ${describe(error)}; check --db`, {
      cause: error,
    });
  });
  try {
    if (options.seed) {
      let raw: unknown;
      try {
        raw = JSON.parse(await readFile(options.seed, "utf8"));
      } catch (error) {
        throw new InputError(
          `cannot read the seed file ${options.seed} as JSON; check the path and its syntax`,
          { cause: error },
        );
      }
      applySeed(db, parseOrThrow(SeedDocumentSchema, raw, `seed ${options.seed}`), new Date());
    }
    const delay = Number(io.env.BATON_SERVE_TEST_ACTIVATION_DELAY_MS ?? 0);
    const capability: CapabilitySettings = {
      smtpUrl: options.smtpUrl,
      matcherUrl: options.matcherUrl,
      matcherToken: io.env.BATON_MATCHER_TOKEN || undefined,
      dashboardUrl: options.dashboardUrl,
    };
    const app = createServerApp({
      db,
      logger,
      capability,
      adminToken: io.env.BATON_ADMIN_TOKEN || undefined,
      ...(Number.isFinite(delay) && delay > 0 ? { activationDelayMs: delay } : {}),
    });
    const server = createNodeServer(app.handle);
    await new Promise<void>((resolve, reject) => {
      server.once("error", (error) =>
        reject(
          new UsageError(
            `cannot listen on ${options.host}:${options.port}: ${describe(error)}; pick another --host or --port`,
            { cause: error },
          ),
        ),
      );
      server.listen(options.port, options.host, () => resolve());
    });
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : options.port;
    const host = options.host.includes(":") ? `[${options.host}]` : options.host;
    const url = `http://${host}:${port}`;
    capability.serviceUrl = url;
    app.start();
    if (options.json) writeLine(io.stdout, JSON.stringify({ url }));
    else writeLine(io.stdout, `baton serve: listening on ${url}`);
    logger.info({ url }, "listening");

    await stopRequested;
    logger.info("stopping");
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await app.stop();
    server.closeIdleConnections();
    // A client holding a keep-alive connection open must not keep the service up.
    setTimeout(() => server.closeAllConnections(), 2000).unref();
    await closed;
    return EXIT.ok;
  } finally {
    db.close();
  }
}

function onceSignalled(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      resolve();
    };
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
