// Binds one of `baton serve`'s listeners (public, sandbox, admin) to its address: a node:http server around
// that listener's fetch-style handler, and the URL clients use to reach it.
import type { Server } from "node:http";
import { UsageError } from "../../errors.js";
import { createNodeServer } from "../surfaces/http/node-server.js";

export interface BoundListener {
  server: Server;
  /** `http://host:port`, the port the system picked when the flag said 0. */
  url: string;
  /** Stops accepting; resolves once every connection has ended (see closeConnections). */
  close(): Promise<void>;
  /** Ends idle keep-alive connections now, and every connection after `graceMs`. */
  closeConnections(graceMs: number): void;
}

export async function bindListener(
  fetch: (request: Request) => Response | Promise<Response>,
  address: { host: string; port: number },
  flags: string,
): Promise<BoundListener> {
  const server = createNodeServer(fetch);
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) =>
      reject(
        new UsageError(
          `cannot listen on ${address.host}:${address.port}: ${describe(error)}; pick another ${flags}`,
          { cause: error },
        ),
      ),
    );
    server.listen(address.port, address.host, () => resolve());
  });
  const bound = server.address();
  const port = typeof bound === "object" && bound ? bound.port : address.port;
  const host = address.host.includes(":") ? `[${address.host}]` : address.host;
  let closed: Promise<void> | undefined;
  return {
    server,
    url: `http://${host}:${port}`,
    close: () => {
      closed ??= new Promise<void>((resolve) => server.close(() => resolve()));
      return closed;
    },
    closeConnections(graceMs) {
      server.closeIdleConnections();
      // A client holding a keep-alive connection open must not keep the service up.
      setTimeout(() => server.closeAllConnections(), graceMs).unref();
    },
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
