// Issue 11 point 5: a placeholder becomes its value only in Authorization (Bearer, Basic) and operator-named
// headers, only when the CONNECT authority, the TLS SNI and the inner Host agree and equal an approved
// destination; everywhere else it goes out unchanged and is audited as placeholder_unapproved. A value in a
// response comes back as its placeholder. The upstream records what it received.
import { readFile } from "node:fs/promises";
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

  it("a CONNECT authority that differs from the inner Host: no swap, audited with the Host it carried", async () => {
    const result = await world.curl([
      "--cacert",
      world.proxyCaFile,
      "-H",
      "Host: other.acme.test",
      "-H",
      `Authorization: Bearer ${PLACEHOLDER}`,
      "https://api.acme.test/mismatch",
    ]);
    expect(result.status).toBe(200);
    expect(lastAt("/mismatch").headers.authorization).toBe(`Bearer ${PLACEHOLDER}`);
    const line = world.audit.filter((a) => a.kind === "mitm" && a.status === 200).at(-1)!;
    expect(line).toMatchObject({
      hostHeader: "other.acme.test",
      substitution: { swapped: [], unapproved: [SECRET_ID] },
    });
    expect(line.reason).toContain("disagree");
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
  it("an SNI that differs from the CONNECT authority, certificate ignored: nothing is swapped", async () => {
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
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(lastAt("/sni-ignored").headers.authorization).toBe(`Bearer ${PLACEHOLDER}`);
    const line = world.audit.filter((a) => a.kind === "mitm" && a.status === 200).at(-1)!;
    expect(line).toMatchObject({
      sni: "other.acme.test",
      substitution: { swapped: [], unapproved: [SECRET_ID] },
    });
  });

  it("pipelined requests in one tunnel are each judged on their own Host", async () => {
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
    expect(answers.map((a) => a.slice(0, 15))).toEqual(Array(3).fill("HTTP/1.1 200 OK"));
    expect(["/pipe-1", "/pipe-2", "/pipe-3"].map((p) => lastAt(p).headers.authorization)).toEqual([
      `Bearer ${CANARY}`,
      `Bearer ${PLACEHOLDER}`,
      `Bearer ${CANARY}`,
    ]);
    expect(answers.join("")).not.toContain(CANARY);
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
