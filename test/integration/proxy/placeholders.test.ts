// Issue 11 point 5: a placeholder becomes its value only in Authorization (Bearer, Basic) and operator-named
// headers, only at an approved destination; everywhere else it goes out unchanged and is audited as
// placeholder_unapproved. Issue 21 points 14 and 15: where a placeholder can be swapped, a CONNECT authority,
// TLS SNI and inner Host that disagree are refused (host_mismatch, sni_mismatch), and so are two placeholders
// where one credential is expected (ambiguous_credentials). A value in a
// response comes back as its placeholder. The upstream records what it received.
import { readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CANARY,
  eventually,
  header,
  LEASE,
  OTHER_WORKSPACE_PLACEHOLDER,
  PLACEHOLDER,
  type ProxyWorld,
  SECRET_ID,
  startProxyWorld,
} from "./harness.js";
import { exchange, openTunnel, record, startTls } from "./raw.js";

let world: ProxyWorld;
beforeAll(async () => {
  world = await startProxyWorld();
});
afterAll(async () => {
  await world?.close();
});

/** The last request the upstream saw for this path. */
const lastAt = (path: string) =>
  world
    .received()
    .filter((l) => l.url === path)
    .at(-1)!;
const basic = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString("base64");

/** The ClientHello Node's TLS client sends for `servername`, caught by a plain TCP listener. */
async function captureClientHello(servername: string): Promise<Buffer> {
  return new Promise((resolve) => {
    const server = createServer((socket) => {
      socket.once("data", (data) => {
        resolve(data);
        socket.destroy();
        server.close();
      });
    }).listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      tlsConnect({ host: "127.0.0.1", port, servername }).on("error", () => {});
    });
  });
}

describe("at the approved destination (https://api.acme.test, any path)", () => {
  it("a Bearer placeholder arrives as the real value; the audit names the secret id, never the value", async () => {
    const result = await world.curl([
      "--cacert",
      world.proxyCaFile,
      "-H",
      `Authorization: Bearer ${PLACEHOLDER}`,
      "https://api.acme.test/bearer",
    ]);
    expect(result.status).toBe(200);
    expect(lastAt("/bearer").headers.authorization).toBe(`Bearer ${CANARY}`);
    const line = world.audit.find((a) => a.kind === "mitm" && a.method === "GET" && a.status === 200);
    expect(line).toMatchObject({
      sni: "api.acme.test",
      substitution: { swapped: [SECRET_ID], unapproved: [] },
    });
    expect(JSON.stringify(world.audit)).not.toContain(CANARY);
  });

  it("Basic's base64 user:placeholder arrives as user:value", async () => {
    await world.curl([
      "--cacert",
      world.proxyCaFile,
      "-u",
      `deploy:${PLACEHOLDER}`,
      "https://api.acme.test/basic",
    ]);
    expect(lastAt("/basic").headers.authorization).toBe(`Basic ${basic("deploy", CANARY)}`);
  });

  it("an operator-named header (x-api-key) is swapped; any other header is left as it is", async () => {
    await world.curl([
      "--cacert",
      world.proxyCaFile,
      "-H",
      `X-Api-Key: ${PLACEHOLDER}`,
      "-H",
      `X-Other: ${PLACEHOLDER}`,
      "https://api.acme.test/named",
    ]);
    const got = lastAt("/named").headers;
    expect(got["x-api-key"]).toBe(CANARY);
    expect(got["x-other"]).toBe(PLACEHOLDER);
  });

  it("a response echoing the real value reaches the sandbox as the placeholder (headers and body)", async () => {
    const result = await world.curl([
      "--cacert",
      world.proxyCaFile,
      "-H",
      `Authorization: Bearer ${PLACEHOLDER}`,
      "https://api.acme.test/echo",
    ]);
    expect(lastAt("/echo").headers.authorization).toBe(`Bearer ${CANARY}`);
    expect(result.body).toContain(`Bearer ${PLACEHOLDER}`);
    expect(header(result, "x-echo-authorization")).toBe(`Bearer ${PLACEHOLDER}`);
    expect(result.body + result.headers).not.toContain(CANARY);
    const line = world.audit.filter((a) => a.kind === "mitm").at(-1)!;
    expect(line.substitution!.scrubbed).toBeGreaterThanOrEqual(2);
  });

  it("a placeholder of a secret this sandbox does not hold is never swapped", async () => {
    await world.curl([
      "--cacert",
      world.proxyCaFile,
      "-H",
      `Authorization: Bearer ${OTHER_WORKSPACE_PLACEHOLDER}`,
      "https://api.acme.test/foreign",
    ]);
    expect(lastAt("/foreign").headers.authorization).toBe(`Bearer ${OTHER_WORKSPACE_PLACEHOLDER}`);
    expect(world.audit.filter((a) => a.kind === "mitm").at(-1)!.substitution!.unknown).toBe(1);
  });
});

describe("anywhere else the placeholder goes out unchanged, audited as placeholder_unapproved", () => {
  it("to an unapproved host the tunnel stays opaque (the upstream's own certificate, no swap)", async () => {
    const result = await world.curl([
      "--cacert",
      world.upstreamCaFile,
      "-H",
      `Authorization: Bearer ${PLACEHOLDER}`,
      "https://other.acme.test/unapproved",
    ]);
    expect(result.status).toBe(200);
    expect(lastAt("/unapproved").headers.authorization).toBe(`Bearer ${PLACEHOLDER}`);
    const line = await eventually(() =>
      world.audit.filter((a) => a.kind === "connect" && a.host === "other.acme.test").at(-1),
    );
    expect(line).toMatchObject({
      decision: "allow",
      sni: "other.acme.test",
      dialled: world.upstream.address,
    });
  });

  it("a CONNECT authority that differs from the inner Host: 421 host_mismatch, nothing reaches the upstream", async () => {
    const result = await world.curl([
      "--cacert",
      world.proxyCaFile,
      "-H",
      "Host: other.acme.test",
      "-H",
      `Authorization: Bearer ${PLACEHOLDER}`,
      "https://api.acme.test/mismatch",
    ]);
    expect(result.status).toBe(421);
    expect(header(result, "baton-proxy-error")).toBe("host_mismatch");
    expect(result.body).toContain("the Host header other.acme.test differs from api.acme.test:443");
    expect(world.received().filter((l) => l.url === "/mismatch")).toEqual([]);
    const line = world.audit.filter((a) => a.kind === "mitm" && a.error === "host_mismatch").at(-1)!;
    expect(line).toMatchObject({
      decision: "deny",
      status: 421,
      hostHeader: "other.acme.test",
      sandbox: "sbx_test",
    });
  });

  it("an SNI that differs from the CONNECT authority: no leaf for it, nothing sent", async () => {
    // curl --connect-to sends CONNECT api.acme.test:443 while its TLS names other.acme.test.
    const before = world.received().length;
    const result = await world.curl([
      "--cacert",
      world.proxyCaFile,
      "--connect-to",
      "other.acme.test:443:api.acme.test:443",
      "-H",
      `Authorization: Bearer ${PLACEHOLDER}`,
      "https://other.acme.test/sni",
    ]);
    expect(result.code).not.toBe(0);
    expect(world.received().length).toBe(before);
  });

  it("plain http to a destination outside the approved path prefix is not swapped", async () => {
    await world.curl(["-H", `Authorization: Bearer ${PLACEHOLDER}`, "http://plain.acme.test/v2/outside"]);
    expect(lastAt("/v2/outside").headers.authorization).toBe(`Bearer ${PLACEHOLDER}`);
    await world.curl(["-H", `Authorization: Bearer ${PLACEHOLDER}`, "http://plain.acme.test/v1/inside"]);
    expect(lastAt("/v1/inside").headers.authorization).toBe(`Bearer ${CANARY}`);
  });

  it("plain http to a host with an approved http secret and another Host: 421 host_mismatch; the same host with :80 passes", async () => {
    const result = await world.curl([
      "-H",
      "Host: other.acme.test",
      "-H",
      `Authorization: Bearer ${PLACEHOLDER}`,
      "http://plain.acme.test/v1/lying-host",
    ]);
    expect(result.status).toBe(421);
    expect(header(result, "baton-proxy-error")).toBe("host_mismatch");
    expect(world.received().filter((l) => l.url === "/v1/lying-host")).toEqual([]);
    await world.curl([
      "-H",
      "Host: PLAIN.acme.test:80",
      "-H",
      `Authorization: Bearer ${PLACEHOLDER}`,
      "http://plain.acme.test/v1/same-host",
    ]);
    expect(lastAt("/v1/same-host").headers.authorization).toBe(`Bearer ${CANARY}`);
  });

  it("a placeholder in the URL is reported, never swapped", async () => {
    await world.curl(["--cacert", world.proxyCaFile, `https://api.acme.test/q?token=${PLACEHOLDER}`]);
    expect(lastAt(`/q?token=${PLACEHOLDER}`)).toBeDefined();
    expect(world.audit.filter((a) => a.kind === "mitm").at(-1)!.substitution!.unapproved).toEqual([
      SECRET_ID,
    ]);
  });
});

describe("an answer from the approved host reaches the sandbox with the placeholder, however it echoes the value", () => {
  const ca = () => world.proxyCaFile;
  const bearer = ["-H", `Authorization: Bearer ${PLACEHOLDER}`];

  it("Basic credentials echoed back come back as base64 of user:placeholder, whatever padding was sent", async () => {
    for (const [user, strip] of [
      ["deploy", false],
      ["ci", true],
    ] as const) {
      const sent = basic(user, PLACEHOLDER).replace(strip ? /=+$/ : /$^/, "");
      const result = await world.curl([
        "--cacert",
        ca(),
        "-H",
        `Authorization: Basic ${sent}`,
        "https://api.acme.test/echo",
      ]);
      expect(lastAt("/echo").headers.authorization).toBe(`Basic ${basic(user, CANARY)}`);
      const echoed = (JSON.parse(result.body) as { headers: { authorization: string } }).headers
        .authorization;
      expect(echoed).toBe(`Basic ${sent}`);
      expect(header(result, "x-echo-authorization")).toBe(`Basic ${sent}`);
      expect(Buffer.from(echoed.slice(6), "base64").toString()).toBe(`${user}:${PLACEHOLDER}`);
    }
  });

  it("every request to a host a secret is approved for asks for an uncompressed answer", async () => {
    await world.curl(["--cacert", ca(), "--compressed", "https://api.acme.test/echo"]);
    expect(lastAt("/echo").headers["accept-encoding"]).toBe("identity");
  });

  it.each(["gzip", "deflate", "br"])(
    "an answer compressed with %s although identity was asked for is decoded and scrubbed",
    async (encoding) => {
      const result = await world.curl([
        "--cacert",
        ca(),
        "--compressed",
        ...bearer,
        `https://api.acme.test/echo?encoding=${encoding}`,
      ]);
      expect(result.status).toBe(200);
      expect(header(result, "content-encoding")).toBeUndefined();
      expect(lastAt(`/echo?encoding=${encoding}`).headers.authorization).toBe(`Bearer ${CANARY}`);
      expect(result.body).toContain(`"authorization":"Bearer ${PLACEHOLDER}"`);
      expect(result.body + result.headers).not.toContain(CANARY);
    },
  );

  it("an answer in a coding the proxy cannot read is refused (502 answer_encoding_unsupported)", async () => {
    const result = await world.curl([
      "--cacert",
      ca(),
      ...bearer,
      "https://api.acme.test/echo?encoding=compress",
    ]);
    expect(result.status).toBe(502);
    expect(header(result, "baton-proxy-error")).toBe("answer_encoding_unsupported");
    expect(result.body).toContain("encoded compress");
    expect(result.body + result.headers).not.toContain(CANARY);
  });

  it("a scrubbed answer that arrives whole goes out in one piece with the Content-Length of what was sent", async () => {
    const tls = record(
      await startTls(
        await openTunnel(world.sandbox.gateway, world.port, "api.acme.test:443", LEASE),
        "api.acme.test",
        {
          ca: await readFile(ca(), "utf8"),
        },
      ),
    );
    const [answer] = await exchange(
      tls,
      `GET /echo HTTP/1.1\r\nHost: api.acme.test\r\nAuthorization: Bearer ${PLACEHOLDER}\r\n\r\n`,
    );
    const [head, body] = answer!.split("\r\n\r\n") as [string, string];
    expect(head).not.toMatch(/^transfer-encoding:/im);
    expect(head).toMatch(new RegExp(`^content-length: ${Buffer.byteLength(body)}$`, "im"));
    expect(body).toContain(`Bearer ${PLACEHOLDER}`);
  });

  it("a reason phrase echoing the value comes back with the placeholder", async () => {
    const result = await world.curl(["--cacert", ca(), ...bearer, "https://api.acme.test/echo-reason"]);
    expect(result.headers).toMatch(new RegExp(`^HTTP/1.1 401 denied Bearer ${PLACEHOLDER}\r?$`, "m"));
    expect(result.headers).not.toContain(CANARY);
  });

  it("a streamed answer is passed on as it comes: an event does not wait for the next one", async () => {
    const tls = record(
      await startTls(
        await openTunnel(world.sandbox.gateway, world.port, "api.acme.test:443", LEASE),
        "api.acme.test",
        {
          ca: await readFile(ca(), "utf8"),
        },
      ),
    );
    try {
      tls.socket.write(
        `GET /events?id=e1 HTTP/1.1\r\nHost: api.acme.test\r\nAuthorization: Bearer ${PLACEHOLDER}\r\n\r\n`,
      );
      await eventually(() => (tls.text().includes("data: one\n\n") ? true : undefined));
      expect(tls.text()).not.toContain("data: two");
    } finally {
      await world.curl(["--cacert", ca(), "https://api.acme.test/release?id=e1"]);
    }
    await eventually(() => (tls.text().includes("data: two\n\n") ? true : undefined));
  });

  it("the placeholder path does not forward an Upgrade: the upstream answers the plain request", async () => {
    const tls = record(
      await startTls(
        await openTunnel(world.sandbox.gateway, world.port, "api.acme.test:443", LEASE),
        "api.acme.test",
        {
          ca: await readFile(ca(), "utf8"),
        },
      ),
    );
    const [answer] = await exchange(
      tls,
      "GET /upgrade HTTP/1.1\r\nHost: api.acme.test\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
    );
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(lastAt("/upgrade").headers.upgrade).toBeUndefined();
  });
});

describe("the SNI and pipelined requests", () => {
  it("an SNI that differs from the CONNECT authority, certificate ignored: 421 host_mismatch, tunnel closed", async () => {
    const tls = record(
      await startTls(
        await openTunnel(world.sandbox.gateway, world.port, "api.acme.test:443", LEASE),
        "other.acme.test",
        {
          verify: false,
        },
      ),
    );
    const [answer] = await exchange(
      tls,
      `GET /sni-ignored HTTP/1.1\r\nHost: api.acme.test\r\nAuthorization: Bearer ${PLACEHOLDER}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 421 /);
    expect(answer).toMatch(/^baton-proxy-error: host_mismatch/im);
    expect(answer).toContain("the TLS hello names other.acme.test in a tunnel to api.acme.test:443");
    await eventually(() => (tls.closed() ? true : undefined));
    expect(world.received().filter((l) => l.url === "/sni-ignored")).toEqual([]);
    const line = world.audit.filter((a) => a.kind === "mitm" && a.error === "host_mismatch").at(-1)!;
    expect(line).toMatchObject({ sni: "other.acme.test", status: 421 });
  });

  it("a CONNECT to a host without secrets whose TLS hello names one with them is refused (sni_mismatch)", async () => {
    const before = world.received().length;
    const tunnel = await openTunnel(world.sandbox.gateway, world.port, "other.acme.test:443", LEASE);
    const failed = await startTls(tunnel, "api.acme.test", { verify: false }).then(
      () => "handshake finished",
      (error: Error) => error.message,
    );
    expect(failed).toMatch(/access denied|alert|socket hang up|ECONNRESET/i);
    const line = await eventually(() =>
      world.audit.find((a) => a.kind === "connect" && a.error === "sni_mismatch"),
    );
    expect(line).toMatchObject({
      host: "other.acme.test",
      sni: "api.acme.test",
      decision: "deny",
      status: 403,
    });
    expect(line.reason).toContain("the TLS hello names api.acme.test");
    expect(world.refusals.all().some((r) => r.code === "sni_mismatch" && r.host === "other.acme.test")).toBe(
      true,
    );
    expect(world.received().length).toBe(before);
  });

  it("a ClientHello split across TLS records is read whole: its server name is still refused", async () => {
    // A client may fragment its hello; the server name sits in the last fragment, where a first-record read
    // would miss it. The proxy must see it before any byte goes upstream.
    const tunnel = record(await openTunnel(world.sandbox.gateway, world.port, "other.acme.test:443", LEASE));
    const hello = await captureClientHello("api.acme.test");
    const body = hello.subarray(5);
    const cut = 20;
    const recordOf = (part: Buffer) =>
      Buffer.concat([Buffer.from([22, 3, 1, part.length >> 8, part.length & 255]), part]);
    tunnel.socket.write(Buffer.concat([recordOf(body.subarray(0, cut)), recordOf(body.subarray(cut))]));
    await eventually(() => (tunnel.closed() ? true : undefined));
    const lines = world.audit.filter((a) => a.kind === "connect" && a.error === "sni_mismatch");
    expect(lines.at(-1)).toMatchObject({ sni: "api.acme.test" });
  });

  it("pipelined requests in one tunnel are each judged on their own Host (a wrong one is refused)", async () => {
    const tls = record(
      await startTls(
        await openTunnel(world.sandbox.gateway, world.port, "api.acme.test:443", LEASE),
        "api.acme.test",
        {
          ca: await readFile(world.proxyCaFile, "utf8"),
        },
      ),
    );
    const ask = (path: string, host: string) =>
      `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${PLACEHOLDER}\r\n\r\n`;
    const answers = await exchange(
      tls,
      ask("/pipe-1", "api.acme.test") + ask("/pipe-2", "other.acme.test") + ask("/pipe-3", "api.acme.test"),
      3,
    );
    expect(answers.map((a) => a.slice(0, 15))).toEqual([
      "HTTP/1.1 200 OK",
      "HTTP/1.1 421 Mi",
      "HTTP/1.1 200 OK",
    ]);
    expect(["/pipe-1", "/pipe-3"].map((p) => lastAt(p).headers.authorization)).toEqual([
      `Bearer ${CANARY}`,
      `Bearer ${CANARY}`,
    ]);
    expect(world.received().filter((l) => l.url === "/pipe-2")).toEqual([]);
    expect(answers.join("")).not.toContain(CANARY);
  });
});

describe("two placeholders where one credential is expected are refused (400 ambiguous_credentials)", () => {
  const twoAuthorizations = (path: string, second: string) =>
    `GET ${path} HTTP/1.1\r\nHost: api.acme.test\r\nAuthorization: Bearer ${PLACEHOLDER}\r\nAuthorization: ${second}\r\n\r\n`;

  it.each([
    ["one Bearer with two placeholders", `Bearer ${PLACEHOLDER} ${PLACEHOLDER}`],
    [
      "one Bearer with this sandbox's placeholder and another",
      `Bearer ${PLACEHOLDER} ${OTHER_WORKSPACE_PLACEHOLDER}`,
    ],
    ["Basic whose user and password are placeholders", `Basic ${basic(PLACEHOLDER, PLACEHOLDER)}`],
  ])("%s", async (_what, value) => {
    const path = `/ambiguous-${Math.random().toString(36).slice(2)}`;
    const result = await world.curl([
      "--cacert",
      world.proxyCaFile,
      "-H",
      `Authorization: ${value}`,
      `https://api.acme.test${path}`,
    ]);
    expect(result.status).toBe(400);
    expect(header(result, "baton-proxy-error")).toBe("ambiguous_credentials");
    expect(result.body).toContain("holds 2 placeholders");
    expect(world.received().filter((l) => l.url === path)).toEqual([]);
    const line = world.audit.filter((a) => a.error === "ambiguous_credentials").at(-1)!;
    expect(line).toMatchObject({ decision: "deny", status: 400, substitution: { swapped: [] } });
  });

  it("two Authorization headers with placeholders, inside the tunnel and on plain http", async () => {
    const tls = record(
      await startTls(
        await openTunnel(world.sandbox.gateway, world.port, "api.acme.test:443", LEASE),
        "api.acme.test",
        { ca: await readFile(world.proxyCaFile, "utf8") },
      ),
    );
    const [answer] = await exchange(tls, twoAuthorizations("/two-headers", `Bearer ${PLACEHOLDER}`));
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/^baton-proxy-error: ambiguous_credentials/im);
    expect(answer).toContain("2 authorization headers carry placeholders");
    const plain = await world.curl([
      "-H",
      `Authorization: Bearer ${PLACEHOLDER}`,
      "-H",
      `X-Api-Key: ${PLACEHOLDER} ${PLACEHOLDER}`,
      "http://plain.acme.test/v1/two-plain",
    ]);
    expect(plain.status).toBe(400);
    expect(header(plain, "baton-proxy-error")).toBe("ambiguous_credentials");
    expect(world.received().filter((l) => /two-headers|two-plain/.test(l.url))).toEqual([]);
  });

  it("one placeholder per credential header still goes through", async () => {
    const result = await world.curl([
      "--cacert",
      world.proxyCaFile,
      "-H",
      `Authorization: Bearer ${PLACEHOLDER}`,
      "-H",
      `X-Api-Key: ${PLACEHOLDER}`,
      "https://api.acme.test/one-each",
    ]);
    expect(result.status).toBe(200);
    expect(lastAt("/one-each").headers).toMatchObject({
      authorization: `Bearer ${CANARY}`,
      "x-api-key": CANARY,
    });
  });
});

describe("canaries", () => {
  it("the secret's value is in no audit line, debug log line or refusal of the proxy", () => {
    const everything = [JSON.stringify(world.audit), world.log(), JSON.stringify(world.refusals.all())].join(
      "\n",
    );
    expect(everything.length).toBeGreaterThan(100);
    expect(everything).not.toContain(CANARY);
  });
});
