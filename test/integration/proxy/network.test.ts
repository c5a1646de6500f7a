// The dialer and the refusals on real sockets: DNS rebinding cannot win, one bad answer denies a name, the
// request is routed on its target's authority (never Host), a redirect to metadata is denied on its own merits,
// the proxy's own address is denied, and each failure has its status and Baton-Proxy-Error code.

import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually, header, LEASE, type ProxyWorld, startProxyWorld } from "./harness.js";
import { basicLease, dialProxy, exchange, openTunnel, record, startTls } from "./raw.js";

let world: ProxyWorld;
beforeAll(async () => {
  world = await startProxyWorld({
    deny: [
      { name: "no-smtp", ports: [25] },
      { name: "no-delete", hosts: ["api.acme.test"], methods: ["DELETE"] },
    ],
    // Even an operator rule naming loopback and metadata opens neither.
    allow: [{ name: "tries-loopback", cidr: ["127.0.0.0/8", "169.254.0.0/16", "::1", "fe80::/10"] }],
    timeouts: { connectMs: 2000, idleMs: 1500 },
  });
});
afterAll(async () => {
  await world?.close();
});

describe("resolution", () => {
  it("rebind.test flipping between the upstream and 127.0.0.1: each request dials only what it checked", async () => {
    let flip = 0;
    world.dns.set("rebind.test", (type) =>
      type === "A" ? [flip++ % 2 === 0 ? world.upstream.address : "127.0.0.1"] : [],
    );
    const first = await world.curl(["http://rebind.test/first"]);
    const second = await world.curl(["http://rebind.test/second"]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(403);
    expect(header(second, "baton-proxy-error")).toBe("destination_denied");
    const lines = world.audit.filter((a) => a.host === "rebind.test");
    expect(lines[0]).toMatchObject({ resolved: [world.upstream.address], dialled: world.upstream.address });
    expect(lines[1]).toMatchObject({ resolved: ["127.0.0.1"], dialled: null, rule: "range:loopback" });
    // One question per request per family: the proxy never resolved a name a second time to dial it.
    expect(world.dns.asked("rebind.test")).toBe(4);
    expect(world.received().some((l) => l.url === "/second")).toBe(false);
  });

  it("a name with a public and a loopback answer is denied as a whole", async () => {
    const result = await world.curl(["http://mixed.acme.test/"]);
    expect(result.status).toBe(403);
    expect(result.body).toContain("mixed.acme.test is denied (loopback address)");
  });

  it("a name that does not resolve is 502 dns_failed", async () => {
    const result = await world.curl(["http://nowhere.acme.test/"]);
    expect(result.status).toBe(502);
    expect(header(result, "baton-proxy-error")).toBe("dns_failed");
  });
});

describe("routing on the target's authority", () => {
  it("absolute-form with a Host naming another host, no secret anywhere: 421 host_mismatch, nothing forwarded", async () => {
    // Before issue 35 C.17 the proxy replaced the Host with the target's and forwarded the request.
    const result = await world.curl(["-H", "Host: 127.0.0.1", "http://api.acme.test/lying-host"]);
    expect(result.status).toBe(421);
    expect(header(result, "baton-proxy-error")).toBe("host_mismatch");
    expect(result.body).toContain("the Host header 127.0.0.1 differs from api.acme.test");
    expect(world.received().filter((l) => l.url === "/lying-host")).toEqual([]);
    const line = world.audit.find((a) => a.host === "api.acme.test" && a.hostHeader === "127.0.0.1");
    expect(line).toMatchObject({ decision: "deny", status: 421, error: "host_mismatch" });
  });

  it("absolute-form whose Host agrees (case, default port) goes to the target", async () => {
    const result = await world.curl(["-H", "Host: API.acme.test:80", "http://api.acme.test/same-host"]);
    expect(result.status).toBe(200);
    expect(world.received().find((l) => l.url === "/same-host")!.headers.host).toBe("api.acme.test");
  });

  it("plain HTTP in an opaque tunnel whose Host names another host: 421 host_mismatch in the tunnel, nothing forwarded", async () => {
    // other.acme.test has no secret, so its CONNECT is an opaque tunnel; api.acme.test shares its address.
    for (const lying of ["127.0.0.1", "api.acme.test", "other.acme.test:8080"]) {
      const tunnel = record(await openTunnel(world.sandbox.gateway, world.port, "other.acme.test:80", LEASE));
      const [answer] = await exchange(tunnel, `GET /tunnel-lying HTTP/1.1\r\nHost: ${lying}\r\n\r\n`);
      expect(answer, lying).toMatch(/^HTTP\/1\.1 421 /);
      expect(answer).toContain("host_mismatch");
      expect(answer).toContain(`the Host header ${lying} differs from other.acme.test:80`);
    }
    expect(world.received().filter((l) => l.url === "/tunnel-lying")).toEqual([]);
    await eventually(() =>
      world.audit.find(
        (a) => a.host === "other.acme.test" && a.error === "host_mismatch" && a.rule === "endpoints",
      ),
    );
  });

  it("plain HTTP in an opaque tunnel whose Host names the tunnel's authority goes through", async () => {
    const tunnel = record(await openTunnel(world.sandbox.gateway, world.port, "other.acme.test:80", LEASE));
    const [answer] = await exchange(tunnel, "GET /tunnel-honest HTTP/1.1\r\nHost: other.acme.test\r\n\r\n");
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(world.received().find((l) => l.url === "/tunnel-honest")!.headers.host).toBe("other.acme.test");
  });

  it("plain HTTP in an opaque tunnel: a later keep-alive request whose Host names another host is refused 421 too", async () => {
    // Before, only the tunnel's first request was read; the bytes after it passed untouched to the shared address.
    const tunnel = record(await openTunnel(world.sandbox.gateway, world.port, "other.acme.test:80", LEASE));
    const [first] = await exchange(tunnel, "GET /tunnel-first HTTP/1.1\r\nHost: other.acme.test\r\n\r\n");
    expect(first).toMatch(/^HTTP\/1\.1 200 /);
    const [second] = await exchange(tunnel, "GET /tunnel-second HTTP/1.1\r\nHost: api.acme.test\r\n\r\n");
    expect(second).toMatch(/^HTTP\/1\.1 421 /);
    expect(second).toContain("host_mismatch");
    // Pipelined in one write: the honest request is served, the lying one refused, each on its own.
    const both = await exchange(
      tunnel,
      "GET /tunnel-third HTTP/1.1\r\nHost: other.acme.test\r\n\r\nGET /tunnel-fourth HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
      2,
    );
    expect(both[0]).toMatch(/^HTTP\/1\.1 200 /);
    expect(both[1]).toMatch(/^HTTP\/1\.1 421 /);
    const urls = world.received().map((l) => l.url);
    expect(urls).toContain("/tunnel-first");
    expect(urls).toContain("/tunnel-third");
    expect(urls.filter((u) => u === "/tunnel-second" || u === "/tunnel-fourth")).toEqual([]);
  });

  it("a redirect to 169.254.169.254: the client's next request is denied on its own merits", async () => {
    const result = await world.curl(["-L", "http://api.acme.test/redirect-metadata"]);
    expect(result.status).toBe(403);
    expect(header(result, "baton-proxy-error")).toBe("destination_denied");
    expect(world.audit.at(-1)).toMatchObject({ host: "169.254.169.254", rule: "range:link_local_metadata" });
  });

  it.each([
    [
      "the proxy's own address and port over http",
      (w: ProxyWorld) => `http://${w.sandbox.gateway}:${w.port}/`,
    ],
    ["the proxy's own address over CONNECT", (w: ProxyWorld) => `https://${w.sandbox.gateway}:${w.port}/`],
  ])("%s is denied", async (_what, url) => {
    const result = await world.curl(["-k", url(world)]);
    expect(result.status === 403 || result.stderr.includes("403")).toBe(true);
    await eventually(() =>
      world.audit.find((a) => a.host === world.sandbox.gateway && a.rule === "proxy_self"),
    );
  });

  it.each([
    ["0x7f.1", "loopback"],
    ["2130706433", "loopback"],
    ["[::ffff:127.0.0.1]", "loopback"],
    ["0251.0376.0251.0376", "link_local_metadata"],
    ["[fe80::1%25lo]", "link_local"],
  ])("a literal %s through the proxy is denied as %s, whatever allow rules say", async (host, range) => {
    const result = await world.curl(["--globoff", `http://${host}/`]);
    expect(result.status).toBe(403);
    expect(result.body).toContain(`(${range} address)`);
  });
});

describe("hostile requests", () => {
  const auth = () => `Proxy-Authorization: ${basicLease(LEASE)}\r\n`;

  it("conflicting Content-Length and Transfer-Encoding: 400, and nothing (nor a smuggled request) goes on", async () => {
    const conn = dialProxy(world.sandbox.gateway, world.port);
    const [answer] = await exchange(
      conn,
      `POST http://api.acme.test/smuggle-outer HTTP/1.1\r\nHost: api.acme.test\r\n${auth()}Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET http://api.acme.test/smuggled HTTP/1.1\r\nHost: api.acme.test\r\n${auth()}\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    const tls = record(
      await startTls(
        await openTunnel(world.sandbox.gateway, world.port, "api.acme.test:443", LEASE),
        "api.acme.test",
        {
          ca: await readFile(world.proxyCaFile, "utf8"),
        },
      ),
    );
    const [inner] = await exchange(
      tls,
      "POST /smuggle-inner HTTP/1.1\r\nHost: api.acme.test\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: api.acme.test\r\n\r\n",
    );
    expect(inner).toMatch(/^HTTP\/1\.1 400 /);
    await eventually(() => (conn.closed() && tls.closed() ? true : undefined));
    expect(world.received().filter((l) => /smuggle/.test(l.url))).toEqual([]);
  });

  it("headers over Node's 16 KiB: 431, and the connection is closed", async () => {
    const conn = dialProxy(world.sandbox.gateway, world.port);
    const [answer] = await exchange(
      conn,
      `GET http://api.acme.test/huge HTTP/1.1\r\nHost: api.acme.test\r\n${auth()}X-Big: ${"a".repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    await eventually(() => (conn.closed() ? true : undefined));
  });

  it("pipelined absolute-form requests are each judged on their own target", async () => {
    const conn = dialProxy(world.sandbox.gateway, world.port);
    const ask = (url: string) => `GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n${auth()}\r\n`;
    const answers = await exchange(
      conn,
      ask("http://api.acme.test/pipelined-1") +
        ask("http://127.0.0.1/pipelined-2") +
        ask("http://other.acme.test/pipelined-3"),
      3,
    );
    expect(answers.map((a) => a.slice(0, 12))).toEqual(["HTTP/1.1 200", "HTTP/1.1 403", "HTTP/1.1 200"]);
    expect(answers[1]).toContain("127.0.0.1 is denied (loopback address)");
    expect(
      world
        .received()
        .filter((l) => l.url.startsWith("/pipelined"))
        .map((l) => l.url),
    ).toEqual(["/pipelined-1", "/pipelined-3"]);
  });

  it("absolute-form with userinfo (http://api.acme.test@127.0.0.1/) is refused as invalid, never routed", async () => {
    for (const url of [
      "http://api.acme.test@127.0.0.1/userinfo",
      "http://user:pass@api.acme.test/userinfo",
    ]) {
      const conn = dialProxy(world.sandbox.gateway, world.port);
      const [answer] = await exchange(conn, `GET ${url} HTTP/1.1\r\nHost: api.acme.test\r\n${auth()}\r\n`);
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toMatch(/^baton-proxy-error: invalid_target$/im);
    }
    expect(world.received().some((l) => l.url === "/userinfo")).toBe(false);
  });

  it("CONNECT to a bracketed address with a zone id is judged as the address", async () => {
    const conn = dialProxy(world.sandbox.gateway, world.port);
    const [answer] = await exchange(conn, `CONNECT [fe80::1%25eth0]:443 HTTP/1.1\r\n${auth()}\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer).toContain("(link_local address)");
  });
});

describe("operator rules", () => {
  it("a deny rule on a port refuses it with rule_denied, naming the rule", async () => {
    const result = await world.curl(["http://api.acme.test:25/"]);
    expect(result.status).toBe(403);
    expect(header(result, "baton-proxy-error")).toBe("rule_denied");
    expect(result.body).toContain("no-smtp");
  });

  it("the mail ports 465 and 587 are refused by default (403 smtp_denied); the operator's own rule names itself on 25", async () => {
    for (const port of [465, 587]) {
      const plain = await world.curl([`http://api.acme.test:${port}/`]);
      expect(plain.status).toBe(403);
      expect(header(plain, "baton-proxy-error")).toBe("smtp_denied");
      expect(plain.body).toContain("allowSmtp");
      const tunnel = await world.curl([`https://api.acme.test:${port}/`]);
      expect(tunnel.stderr).toMatch(/403/);
    }
    const line = world.audit.filter((a) => a.error === "smtp_denied").at(-1)!;
    expect(line).toMatchObject({ rule: "smtp", decision: "deny", port: 587, dialled: null });
  });

  it("a deny rule on a method applies to plain http", async () => {
    const result = await world.curl(["-X", "DELETE", "http://api.acme.test/thing"]);
    expect(result.status).toBe(403);
    expect(result.body).toContain("no-delete");
    const allowed = await world.curl(["-X", "GET", "http://api.acme.test/thing"]);
    expect(allowed.status).toBe(200);
  });
});

describe("failures and the lease", () => {
  it("an upstream that does not answer in time is 504 upstream_timeout", async () => {
    const result = await world.curl(["http://api.acme.test/hang"]);
    expect(result.status).toBe(504);
    expect(header(result, "baton-proxy-error")).toBe("upstream_timeout");
  });

  it("an answer with 60 KB of headers is 502 upstream_headers_too_large, not upstream_unreachable", async () => {
    for (const url of [
      "http://api.acme.test/big-headers?bytes=61440",
      "https://api.acme.test/big-headers?bytes=61440",
    ]) {
      const result = await world.curl(["--cacert", world.proxyCaFile, url]);
      expect(result.status).toBe(502);
      expect(header(result, "baton-proxy-error")).toBe("upstream_headers_too_large");
      expect(result.body).toContain("16 KiB");
    }
    const line = world.audit.filter((a) => a.error === "upstream_headers_too_large").at(-1)!;
    expect(line).toMatchObject({ decision: "error", status: 502, kind: "mitm" });
  });

  it("a closed port is 502 upstream_unreachable", async () => {
    const result = await world.curl(["http://api.acme.test:9/"]);
    expect(result.status).toBe(502);
    expect(header(result, "baton-proxy-error")).toBe("upstream_unreachable");
  });

  it.each([
    ["no lease", null],
    ["an unknown lease", "btl_unknown0000000000000000"],
  ])("%s is 407 with Proxy-Authenticate, for http and CONNECT", async (_what, lease) => {
    const plain = await world.curl(["http://api.acme.test/"], { lease });
    expect(plain.status).toBe(407);
    expect(header(plain, "baton-proxy-error")).toBe("lease_required");
    expect(header(plain, "proxy-authenticate")).toContain("Basic");
    const tunnel = await world.curl(["https://api.acme.test/"], { lease });
    expect(tunnel.stderr).toMatch(/407/);
  });

  it("refusals for a known sandbox are reported (for op get and the disclosure), 407s are not", () => {
    const reported = world.refusals.all();
    expect(reported.some((r) => r.host === "mixed.acme.test" && r.code === "destination_denied")).toBe(true);
    expect(reported.every((r) => r.sandboxId === "sbx_test")).toBe(true);
    expect(reported.some((r) => r.code === "lease_required")).toBe(false);
    expect(LEASE).not.toBe("");
  });
});
