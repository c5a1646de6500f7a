// The forwarder gives each box its own source address at the service, so the failed-credential throttle blocks
// the box that floods, not every box and the operator's loopback tools with it. Real sockets on loopback: a
// "box" is a client bound to another 127/8 address.
import { connect, createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import {
  loopbackSourceFor,
  startForwarder,
} from "../../../../../src/server/adapters/sandboxes/egress/forwarder.js";

describe("loopbackSourceFor", () => {
  it.each([
    ["172.18.0.2", "127.0.0.1", "127.18.0.2"],
    ["10.201.7.2", "127.0.0.1", "127.201.7.2"],
    ["::ffff:172.18.0.3", "127.0.0.1", "127.18.0.3"],
    ["10.0.0.1", "127.0.0.1", null], // would be the operator's own address
    ["172.18.0.2", "192.0.2.10", null], // a target off loopback: the address would not be local
    ["fd00::2", "127.0.0.1", null],
    [undefined, "127.0.0.1", null],
  ])("a box at %s reaching %s comes from %s", (peer, target, source) => {
    expect(loopbackSourceFor(peer, target)).toBe(source);
  });
});

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

describe("startForwarder", () => {
  it("connects to the service from an address derived from the box's, not from 127.0.0.1", async () => {
    const seen: (string | undefined)[] = [];
    const service = createServer((socket) => {
      seen.push(socket.remoteAddress);
      socket.end();
    });
    servers.push(service);
    await new Promise<void>((resolve) => service.listen(0, "127.0.0.1", resolve));
    const address = service.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const forwarder = await startForwarder("127.0.0.1", { host: "127.0.0.1", port });
    try {
      for (const box of ["127.0.0.9", "127.0.0.10"]) {
        await new Promise<void>((resolve, reject) => {
          const socket = connect({ host: "127.0.0.1", port: forwarder.port, localAddress: box });
          socket.on("error", reject);
          socket.on("close", () => resolve());
          socket.resume();
        });
      }
      expect(seen).toEqual(["127.0.0.9", "127.0.0.10"]);
    } finally {
      await forwarder.close();
    }
  });
});
