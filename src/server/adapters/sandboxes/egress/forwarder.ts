// A TCP forwarder from an address only boxes can reach (a bridge's or veth's host side) to a service on the host's
// loopback (the proxy, the operations transport). With it `baton proxy` and `baton serve` keep listening on
// loopback, and the firewall lets boxes reach exactly these ports and nothing else on the host.
import { connect, createServer, type Server, type Socket } from "node:net";
import type { HostEndpoint } from "../driver.js";

export interface Forwarder {
  /** `host:port` the boxes connect to. */
  address: string;
  port: number;
  close(): Promise<void>;
}

/**
 * `port` 0 picks a free one; a port recorded by the previous run is asked for again, because the boxes it adopts
 * carry `host:port` in their environment. The target is whatever this run gives (the service's own port may move).
 */
export async function startForwarder(listenHost: string, target: HostEndpoint, port = 0): Promise<Forwarder> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    // Each box gets its own source address at the service, so a box that floods wrong credentials is
    // throttled alone (src/throttle), not every box and the operator's loopback together.
    const localAddress = loopbackSourceFor(inbound.remoteAddress, target.host);
    const outbound = connect({
      port: target.port,
      host: target.host,
      ...(localAddress ? { localAddress } : {}),
    });
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.once("close", () => sockets.delete(socket));
    }
    inbound.pipe(outbound).pipe(inbound);
    // A reset on either side ends both; nothing is retried or buffered past the socket.
    inbound.once("error", () => outbound.destroy());
    outbound.once("error", () => inbound.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        port !== 0 && error.code === "EADDRINUSE"
          ? new Error(
              `${listenHost}:${port}, the port the sandboxes of the previous run reach, is taken by another process; stop it and start again`,
              { cause: error },
            )
          : error,
      ),
    );
    server.listen(port, listenHost, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : 0;
  return {
    address: `${listenHost}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The loopback address the connection of a box at `peer` comes from: 127 followed by the peer's last three IPv4
 * octets (boxes sit on private /16s or smaller, so boxes differ there). Null when the target is not IPv4
 * loopback (only loopback has every 127/8 address local) or the peer is not IPv4.
 */
export function loopbackSourceFor(peer: string | undefined, targetHost: string): string | null {
  if (!/^127\./.test(targetHost) || !peer) return null;
  const octets = /^(?:::ffff:)?(\d+)\.(\d+)\.(\d+)\.(\d+)$/i.exec(peer);
  if (!octets) return null;
  const source = `127.${octets[2]}.${octets[3]}.${octets[4]}`;
  // Never the address the operator's own tools use on this host.
  return source === "127.0.0.1" ? null : source;
}
