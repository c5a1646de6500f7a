// The reference's network sentence end to end: "Public hosts are reachable and audited. Private, loopback and
// cloud-metadata destinations are blocked. Protected credentials appear as placeholders in the sandbox; the
// proxy substitutes the real credential only for approved destination hosts." The sandbox is a process in its own
// network namespace whose only route is the proxy.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CANARY, eventually, header, PLACEHOLDER, type ProxyWorld, startProxyWorld } from "./harness.js";

let world: ProxyWorld;
beforeAll(async () => {
  world = await startProxyWorld();
});
afterAll(async () => {
  await world?.close();
});

describe("a sandbox whose only route out is the proxy", () => {
  it("cannot reach the upstream directly", async () => {
    const direct = await world.sandbox.exec("curl", [
      "-sS",
      "--max-time",
      "5",
      "--noproxy",
      "*",
      `http://${world.upstream.address}/`,
    ]);
    expect(direct.code).not.toBe(0);
    expect(direct.stderr).toMatch(/unreachable|Could not connect|Failed to connect/i);
  });

  it("reaches an allowed host through the proxy, and the decision is audited", async () => {
    const result = await world.curl(["http://api.acme.test/"], { inSandbox: true });
    expect(result.status).toBe(200);
    expect(result.body).toBe("hello from api\n");
    const line = world.audit.find((a) => a.kind === "http" && a.host === "api.acme.test");
    expect(line).toMatchObject({
      decision: "allow",
      sandbox: "sbx_test",
      workspace: "ws_test",
      method: "GET",
      port: 80,
      resolved: [world.upstream.address],
      dialled: world.upstream.address,
      rule: "test-upstream",
      status: 200,
    });
    expect(line!.bytesDown).toBeGreaterThan(0);
  });

  it("the audit line counts the bytes each way and the time taken (plain http and an opaque tunnel)", async () => {
    const body = "b".repeat(1000);
    const plain = await world.curl(["--data-binary", body, "http://api.acme.test/big?bytes=3000"]);
    expect(plain.body.length).toBe(3000);
    const line = world.audit.find((a) => a.kind === "http" && a.method === "POST")!;
    expect(line).toMatchObject({ bytesUp: 1000, bytesDown: 3000, status: 200 });
    expect(line.durationMs).toBeGreaterThanOrEqual(0);
    const tunnelled = await world.curl([
      "--cacert",
      world.upstreamCaFile,
      "--data-binary",
      body,
      "https://other.acme.test/big?bytes=5000",
    ]);
    expect(tunnelled.body.length).toBe(5000);
    const tunnel = await eventually(() =>
      world.audit.find((a) => a.kind === "connect" && a.host === "other.acme.test"),
    );
    // TLS records and HTTP framing come on top of the bodies.
    expect(tunnel.bytesUp).toBeGreaterThan(1000);
    expect(tunnel.bytesDown).toBeGreaterThan(5000);
    expect(tunnel).toMatchObject({
      sni: "other.acme.test",
      dialled: world.upstream.address,
      decision: "allow",
    });
  });

  it.each([
    ["loopback", "http://127.0.0.1:9/"],
    ["loopback by name", "http://localhost/"],
    ["metadata", "http://169.254.169.254/latest/meta-data/"],
    ["a private host", "http://private.acme.test/"],
  ])("cannot reach %s: 403 with Baton-Proxy-Error and the fix", async (_what, url) => {
    const result = await world.curl([url], { inSandbox: true });
    expect(result.status).toBe(403);
    expect(header(result, "baton-proxy-error")).toBe("destination_denied");
    const host = new URL(url).hostname;
    expect(result.body).toContain(`${host} is denied`);
    expect(result.body).toContain(
      `baton env request-capability --repo <owner/name> --capability <kind> --target ${host}`,
    );
  });

  it("the placeholder becomes the real credential only at the approved host", async () => {
    const approved = await world.curl(
      [
        "--cacert",
        world.proxyCaFile,
        "-H",
        `Authorization: Bearer ${PLACEHOLDER}`,
        "https://api.acme.test/echo",
      ],
      { inSandbox: true },
    );
    expect(approved.status).toBe(200);
    const atUpstream = world.received().filter((l) => l.url === "/echo" && l.scheme === "https");
    expect(atUpstream.at(-1)!.headers.authorization).toBe(`Bearer ${CANARY}`);
    // The echo carries the value back; the sandbox sees the placeholder.
    expect(approved.body).toContain(PLACEHOLDER);
    expect(approved.body).not.toContain(CANARY);
    expect(header(approved, "x-echo-authorization")).toBe(`Bearer ${PLACEHOLDER}`);
  });
});
