// `baton proxy` as a service: loads the config and the CA (created at first start), asks `baton serve` about
// leases, listens, and drains on stop. Returns values; src/cli prints.
import { createWriteStream } from "node:fs";
import type { Server } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { ConfigError, UsageError } from "../errors.js";
import type { Logger } from "../log.js";
import { createAuditSink } from "./audit.js";
import { caPaths, loadOrCreateCa } from "./ca/authority.js";
import { createLeafIssuer } from "./ca/leaves.js";
import { createHttpLeaseSource } from "./lease/http-source.js";
import { loadProxyConfig, resolverFor, upstreamTrust } from "./load-config.js";
import { createOwnAddresses } from "./net/own-addresses.js";
import { createHttpRefusalSink } from "./refusals-sink.js";
import { createProxy, type EgressProxy } from "./server.js";

export interface ProxyServiceOptions {
  host: string;
  port: number;
  /**
   * An already-listening socket the proxy takes over instead of binding host:port (both are then read from it):
   * a caller learns the port before the proxy's modules load and hands it out meanwhile. Connections accepted
   * before the proxy starts stay the listener's; if the proxy fails to start, the caller still owns (and closes) it.
   */
  listener?: Server | undefined;
  serveUrl: string;
  /** BATON_PROXY_TOKEN: shared with `baton serve` for the internal route. */
  token: string | undefined;
  config?: string | undefined;
  stateDir: string;
  /** Audit lines to this file (appended, 0600) instead of stderr. */
  auditFile?: string | undefined;
  /** `--allow-smtp`: opens the mail ports whatever the config file says. */
  allowSmtp?: boolean | undefined;
  logger: Logger;
}

export interface ProxyService {
  url: string;
  caFile: string;
  caCreated: boolean;
  proxy: EgressProxy;
  reloadCa(): Promise<void>;
  stop(graceMs: number): Promise<{ ended: number }>;
}

export function defaultProxyStateDir(env: NodeJS.ProcessEnv): string {
  const dataHome = env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share");
  return join(dataHome, "baton", "proxy");
}

export async function startProxyService(options: ProxyServiceOptions): Promise<ProxyService> {
  if (!options.token) {
    throw new ConfigError("BATON_PROXY_TOKEN is not set; give baton proxy and baton serve the same token");
  }
  let serveUrl: URL;
  try {
    serveUrl = new URL(options.serveUrl);
  } catch (error) {
    throw new UsageError("--serve-url must be a URL such as http://127.0.0.1:8080", { cause: error });
  }
  const loaded = await loadProxyConfig(options.config);
  const config = options.allowSmtp ? { ...loaded, allowSmtp: true } : loaded;
  const ca = await loadOrCreateCa(options.stateDir);
  const auditDestination = options.auditFile
    ? createWriteStream(options.auditFile, { flags: "a", mode: 0o600 })
    : pino.destination({ fd: 2, sync: true });
  const auditLogger = pino({ name: "baton-proxy-audit", level: "info" }, auditDestination);
  const bound = options.listener?.address();
  const listenHost = typeof bound === "object" && bound ? bound.address : options.host;
  const listenAddresses = listenHost === "0.0.0.0" || listenHost === "::" ? [] : [listenHost];
  const proxy = createProxy({
    config,
    leases: createHttpLeaseSource({
      serveUrl: serveUrl.toString(),
      token: options.token,
      cacheMs: config.leaseCacheSeconds * 1000,
    }),
    resolver: resolverFor(config),
    ownAddresses: createOwnAddresses(5_000, listenAddresses),
    ca: { certPem: ca.certPem, leaves: createLeafIssuer(ca) },
    upstreamCa: await upstreamTrust(config),
    audit: createAuditSink(auditLogger),
    refusals: createHttpRefusalSink({
      serveUrl: serveUrl.toString(),
      token: options.token,
      logger: options.logger,
    }),
    logger: options.logger,
  });
  await new Promise<void>((resolve, reject) => {
    proxy.server.once("error", (error) =>
      reject(
        new UsageError(
          `cannot listen on ${options.host}:${options.port}: ${error.message}; pick another --host or --port`,
          { cause: error },
        ),
      ),
    );
    if (options.listener) proxy.server.listen(options.listener, () => resolve());
    else proxy.server.listen(options.port, options.host, () => resolve());
  });
  const address = proxy.server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const host = listenHost.includes(":") ? `[${listenHost}]` : listenHost;
  return {
    url: `http://${host}:${port}`,
    caFile: caPaths(options.stateDir).cert,
    caCreated: ca.created,
    proxy,
    async reloadCa() {
      const next = await loadOrCreateCa(options.stateDir);
      proxy.setCa({ certPem: next.certPem, leaves: createLeafIssuer(next) });
    },
    async stop(graceMs) {
      const result = await proxy.drain(graceMs);
      auditLogger.flush?.();
      return result;
    },
  };
}
