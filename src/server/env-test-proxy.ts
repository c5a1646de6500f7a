// `baton env test`'s throwaway `baton proxy`, in-process: the box's one way out, wired to the throwaway service the
// way `baton/testing` wires a `baton proxy` child to `baton serve` (a shared BATON_PROXY_TOKEN, the service's URL
// for leases and refusals, the proxy's CA and audit lines in a temporary folder removed when it stops).
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "pino";

/** Open connections get this long to finish when the run ends (its boxes are being removed meanwhile). */
const DRAIN_MS = 2_000;

export interface ProxyListener {
  server: Server;
  /** `host:port` the driver forwards the boxes' proxy traffic to. */
  address: string;
}

/**
 * Binds the proxy's loopback port before its modules load, so the driver (which needs the port) and the proxy
 * start at the same time. No box exists until the proxy has taken the socket over; a connection before that is
 * reset rather than left hanging.
 */
export async function bindProxyListener(): Promise<ProxyListener> {
  const server = createServer((early) => early.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return { server, address: `127.0.0.1:${port}` };
}

/** BATON_PROXY_TOKEN for one run: the proxy and the service share it, nothing else ever sees it. */
export function newProxyToken(): string {
  return randomBytes(32).toString("hex");
}

export interface ThrowawayProxy {
  url: string;
  /** Sends the refusals still queued to the service (the proxy batches them), so a disclosure shows them. */
  flushRefusals(): Promise<void>;
  stop(): Promise<void>;
}

export async function startThrowawayProxy(input: {
  listener: ProxyListener;
  serveUrl: string;
  token: string;
  logger: Logger;
}): Promise<ThrowawayProxy> {
  const stateDir = await mkdtemp(join(tmpdir(), "baton-env-test-proxy-"));
  try {
    const { startProxyService } = await import("../proxy/service.js");
    const service = await startProxyService({
      host: "127.0.0.1",
      port: 0,
      listener: input.listener.server,
      serveUrl: input.serveUrl,
      token: input.token,
      stateDir,
      // The audit lines stay out of the command's output; the proxy's refusals reach the disclosure instead.
      auditFile: join(stateDir, "audit.log"),
      logger: input.logger,
    });
    return {
      url: service.url,
      flushRefusals: async () => service.proxy.context.refusals?.flush(),
      async stop() {
        try {
          await service.stop(DRAIN_MS);
        } finally {
          await rm(stateDir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    // Not taken over: the socket is still the caller's listener, closed here with the folder.
    input.listener.server.close();
    await rm(stateDir, { recursive: true, force: true });
    throw error;
  }
}
