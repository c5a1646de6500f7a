// Issue 21 point 13: connection caps. One lease may hold `limits.maxConnectionsPerLease` connections (a request
// or CONNECT past it is refused 429 lease_connection_limit, other leases unaffected); the proxy as a whole holds
// `limits.maxConnections` (a connection past it is answered 503 connection_limit at once and closed). Each
// refusal says which cap and has an audit line.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, LEASE, type ProxyWorld, startProxyWorld } from "./harness.js";
import { basicLease, dialProxy, openTunnel, type Recorded, splitResponses } from "./raw.js";

let world: ProxyWorld;
beforeAll(async () => {
  world = await startProxyWorld({
    timeouts: { connectMs: 2000, idleMs: 60_000, headersMs: 30_000, closeGraceMs: 500 },
    limits: { maxConnections: 5, maxConnectionsPerLease: 2 },
  });
});
afterAll(async () => {
  await world?.close();
});

const proxyAt = () => [world.sandbox.gateway, world.port] as const;
const answerOf = (conn: Recorded) => eventually(() => splitResponses(conn.text())[0]);

describe("connection caps", () => {
  it("a lease at its cap gets 429 lease_connection_limit; another lease is not counted against it", async () => {
    const tunnels = [
      await openTunnel(...proxyAt(), "plain.acme.test:80", LEASE),
      await openTunnel(...proxyAt(), "plain.acme.test:80", LEASE),
    ];
    const third = dialProxy(...proxyAt());
    third.socket.write(
      `CONNECT plain.acme.test:80 HTTP/1.1\r\nHost: plain.acme.test:80\r\nProxy-Authorization: ${basicLease(LEASE)}\r\n\r\n`,
    );
    const refused = await answerOf(third);
    expect(refused).toMatch(/^HTTP\/1\.1 429 /);
    expect(refused).toMatch(/^baton-proxy-error: lease_connection_limit/im);
    expect(refused).toContain("this lease holds 2 connections through the proxy, the limit per lease");
    expect(refused).toContain("limits.maxConnectionsPerLease");
    // The same cap for a plain request on a connection of its own.
    const plain = dialProxy(...proxyAt());
    plain.socket.write(
      `GET http://plain.acme.test/ HTTP/1.1\r\nHost: plain.acme.test\r\nProxy-Authorization: ${basicLease(LEASE)}\r\n\r\n`,
    );
    expect(await answerOf(plain)).toMatch(/^HTTP\/1\.1 429 /);
    await eventually(() => (third.closed() && plain.closed() ? true : undefined));
    // Another lease is judged on its own (here: unknown, so 407), never 429.
    const other = dialProxy(...proxyAt());
    other.socket.write(
      `GET http://plain.acme.test/ HTTP/1.1\r\nHost: plain.acme.test\r\nProxy-Authorization: ${basicLease("btl_other000000000000")}\r\n\r\n`,
    );
    expect(await answerOf(other)).toMatch(/^HTTP\/1\.1 407 /);
    other.socket.destroy();
    const line = world.audit.filter((a) => a.error === "lease_connection_limit").at(-1)!;
    expect(line).toMatchObject({ decision: "deny", status: 429, rule: "limits", host: "plain.acme.test" });
    // A closed tunnel frees its place.
    tunnels[0]!.destroy();
    await eventually(async () => {
      const again = dialProxy(...proxyAt());
      again.socket.write(
        `GET http://plain.acme.test/ HTTP/1.1\r\nHost: plain.acme.test\r\nProxy-Authorization: ${basicLease(LEASE)}\r\nConnection: close\r\n\r\n`,
      );
      const answer = await answerOf(again);
      again.socket.destroy();
      return answer.startsWith("HTTP/1.1 200") ? true : undefined;
    });
    tunnels[1]!.destroy();
  });

  it("past the total cap a connection is answered 503 connection_limit at once and closed", async () => {
    // Connections that send nothing are opened until one is refused: the proxy may still be letting go of the
    // previous test's, so how many it admits first is not fixed, only that it is at most the cap.
    const held: Recorded[] = [];
    const answer = await eventually(async () => {
      const extra = dialProxy(...proxyAt());
      const text = await eventually(() => (extra.closed() ? extra.text() : undefined), 2_000).catch(() => "");
      if (text.startsWith("HTTP/1.1 503")) return text;
      held.push(extra);
      return undefined;
    }, 30_000);
    expect(answer).toMatch(/^baton-proxy-error: connection_limit/im);
    expect(answer).toContain("the proxy holds 5 connections, its limit");
    expect(answer).toContain("limits.maxConnections");
    expect(held.length).toBeLessThanOrEqual(5);
    // The admitted ones were answered nothing: they are still waiting for their headers time-out.
    expect(held.every((c) => c.text() === "" && !c.closed())).toBe(true);
    const line = world.audit.filter((a) => a.error === "connection_limit").at(-1)!;
    expect(line).toMatchObject({ kind: "connection", decision: "error", status: 503, rule: "limits" });
    for (const c of held) c.socket.destroy();
    // Once they are gone, connections are served again.
    await eventually(async () => {
      const next = dialProxy(...proxyAt());
      next.socket.write("GET /healthz HTTP/1.1\r\nHost: proxy\r\nConnection: close\r\n\r\n");
      const answer = await answerOf(next);
      next.socket.destroy();
      return answer.startsWith("HTTP/1.1 200") ? true : undefined;
    });
  });
});
