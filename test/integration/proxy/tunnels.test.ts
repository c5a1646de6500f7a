// Connections held open: a client that never finishes its headers or its TLS handshake is cut off after
// `timeouts.headersMs` on every path (slowloris); a tunnel does not outlive its lease (the placeholder path checks
// the lease on every request inside it, an opaque tunnel is closed when the lease is gone); requests inside the
// placeholder path are origin-form only; and a drain ends what is still open when its grace runs out.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, LEASE, PLACEHOLDER, type ProxyWorld, startProxyWorld } from "./harness.js";
import { basicLease, dialProxy, exchange, openTunnel, type Recorded, record, startTls } from "./raw.js";

let world: ProxyWorld;
beforeAll(async () => {
  world = await startProxyWorld({
    timeouts: { connectMs: 2000, idleMs: 60_000, headersMs: 1000 },
    leaseCacheSeconds: 1,
  });
});
afterAll(async () => {
  await world?.close();
});

const proxyAt = () => [world.sandbox.gateway, world.port] as const;
const caPem = async () => (await import("node:fs/promises")).readFile(world.proxyCaFile, "utf8");

describe("a client that holds a connection without finishing its request is cut off", () => {
  it("on every path: no bytes, half a request line, a CONNECT with no ClientHello, TLS with no request", async () => {
    const idle = dialProxy(...proxyAt());
    const partial = dialProxy(...proxyAt());
    partial.socket.write("GET http://api.acme.test/ HTTP/1.1\r\nHost: api.acme");
    const noHello = record(await openTunnel(...proxyAt(), "api.acme.test:443", LEASE));
    const tls = record(
      await startTls(await openTunnel(...proxyAt(), "api.acme.test:443", LEASE), "api.acme.test", {
        ca: await caPem(),
      }),
    );
    const all: Record<string, Recorded> = { idle, partial, noHello, tls };
    // headersMs is 1 s; the deadline leaves room for the server's periodic check and a loaded machine.
    await eventually(() => (Object.values(all).every((c) => c.closed()) ? true : undefined), 20_000).catch(
      () => {},
    );
    expect(Object.fromEntries(Object.entries(all).map(([name, c]) => [name, c.closed()]))).toEqual({
      idle: true,
      partial: true,
      noHello: true,
      tls: true,
    });
  }, 30_000);
});

describe("inside the placeholder path", () => {
  it("a request in absolute form or a CONNECT is refused (400 invalid_target) and reaches no upstream", async () => {
    const tls = record(
      await startTls(await openTunnel(...proxyAt(), "api.acme.test:443", LEASE), "api.acme.test", {
        ca: await caPem(),
      }),
    );
    const [absolute] = await exchange(
      tls,
      `GET http://other.acme.test/inner-absolute HTTP/1.1\r\nHost: other.acme.test\r\nAuthorization: Bearer ${PLACEHOLDER}\r\n\r\n`,
    );
    expect(absolute).toMatch(/^HTTP\/1\.1 400 /);
    expect(absolute).toMatch(/^baton-proxy-error: invalid_target$/im);
    const inner = record(
      await startTls(await openTunnel(...proxyAt(), "api.acme.test:443", LEASE), "api.acme.test", {
        ca: await caPem(),
      }),
    );
    const [connect] = await exchange(
      inner,
      `CONNECT other.acme.test:443 HTTP/1.1\r\nHost: other.acme.test:443\r\nProxy-Authorization: ${basicLease(LEASE)}\r\n\r\n`,
    );
    expect(connect).toMatch(/^HTTP\/1\.1 400 /);
    expect(world.received().some((l) => l.url.includes("inner-absolute"))).toBe(false);
  });
});

describe("a tunnel does not outlive its lease", () => {
  it("the placeholder path answers 407 to the next request once the lease has expired, and swaps nothing", async () => {
    const tls = record(
      await startTls(await openTunnel(...proxyAt(), "api.acme.test:443", LEASE), "api.acme.test", {
        ca: await caPem(),
      }),
    );
    const ask = (path: string) =>
      exchange(
        tls,
        `GET ${path} HTTP/1.1\r\nHost: api.acme.test\r\nAuthorization: Bearer ${PLACEHOLDER}\r\n\r\n`,
      );
    const [before] = await ask("/lease-before");
    expect(before).toMatch(/^HTTP\/1\.1 200 /);
    const expiry = world.lease.expiresAtMs;
    world.lease.expiresAtMs = Date.now() - 1;
    try {
      const [after] = await ask("/lease-after");
      expect(after).toMatch(/^HTTP\/1\.1 407 /);
      expect(after).toMatch(/^baton-proxy-error: lease_required$/im);
      expect(world.received().some((l) => l.url === "/lease-after")).toBe(false);
      await eventually(() => (tls.closed() ? true : undefined));
    } finally {
      world.lease.expiresAtMs = expiry;
    }
  });

  it("an opaque tunnel is closed once its lease has expired, and its audit line says so", async () => {
    const tunnel = record(await openTunnel(...proxyAt(), "api.acme.test:80", LEASE));
    const [first] = await exchange(tunnel, "GET /opaque-before HTTP/1.1\r\nHost: api.acme.test\r\n\r\n");
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    const expiry = world.lease.expiresAtMs;
    world.lease.expiresAtMs = Date.now() - 1;
    try {
      await eventually(() => (tunnel.closed() ? true : undefined), 15_000);
    } finally {
      world.lease.expiresAtMs = expiry;
    }
    const line = await eventually(() =>
      world.audit.find((a) => a.kind === "connect" && a.port === 80 && a.reason.includes("lease")),
    );
    expect(line.reason).toContain("lease expired or revoked");
  }, 30_000);
});

describe("drain", () => {
  it("ends the tunnels still open when the grace runs out, and counts them", async () => {
    const own = await startProxyWorld();
    try {
      const tunnel = record(await openTunnel(own.sandbox.gateway, own.port, "api.acme.test:80", LEASE));
      const [answer] = await exchange(tunnel, "GET /drain HTTP/1.1\r\nHost: api.acme.test\r\n\r\n");
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      const { ended } = await own.proxy.drain(300);
      expect(ended).toBeGreaterThanOrEqual(1);
      await eventually(() => (tunnel.closed() ? true : undefined));
    } finally {
      await own.close();
    }
  });
});
