// The small pure pieces: the lease in Proxy-Authorization, the SNI of a ClientHello, the refusal text.

import { createServer } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { describe, expect, it } from "vitest";
import { leaseFromProxyAuthorization } from "../../../src/proxy/lease/credentials.js";
import { collectClientHello, MAX_HELLO_BYTES, readClientHelloSni } from "../../../src/proxy/net/sni.js";
import { rawRefusal, renderRefusal } from "../../../src/proxy/refusal.js";
import { PROXY_ERRORS } from "../../../src/proxy/wire.js";

const basic = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;

describe("the lease in Proxy-Authorization", () => {
  it.each([
    [basic("baton:btl_abc"), "btl_abc"],
    ["Bearer btl_abc", "btl_abc"],
    ["bearer   btl_abc", "btl_abc"],
    [basic("someone:btl_abc"), null],
    [basic("baton:"), null],
    ["Digest x", null],
    [undefined, null],
  ])("%s -> %s", (header, lease) => {
    expect(leaseFromProxyAuthorization(header)).toBe(lease);
  });
});

describe("readClientHelloSni", () => {
  it("reads the server name from a real ClientHello, and null from anything else", async () => {
    const hello = await new Promise<Buffer>((resolve) => {
      const server = createServer((socket) => {
        socket.once("data", (data) => {
          resolve(data);
          socket.destroy();
          server.close();
        });
      }).listen(0, "127.0.0.1", () => {
        const port = (server.address() as { port: number }).port;
        tlsConnect({ host: "127.0.0.1", port, servername: "api.acme.test" }).on("error", () => {});
      });
    });
    expect(readClientHelloSni(hello)).toBe("api.acme.test");
    expect(readClientHelloSni(Buffer.from("GET / HTTP/1.1\r\n\r\n"))).toBeNull();
    expect(readClientHelloSni(hello.subarray(0, 20))).toBeNull();
  });
});

describe("refusals", () => {
  it("a denied destination names the host, the reason and the request-capability command", () => {
    const refusal = renderRefusal(PROXY_ERRORS.destinationDenied, {
      host: "10.1.2.3",
      reason: "private address",
      requestId: "prq_1",
    });
    expect(refusal.status).toBe(403);
    expect(refusal.headers["baton-proxy-error"]).toBe("destination_denied");
    expect(refusal.body).toBe(
      'baton proxy: 10.1.2.3 is denied (private address). If the task needs 10.1.2.3, ask for access: baton env request-capability --repo <owner/name> --capability <kind> --target 10.1.2.3 --reason "<what needs it>" (request prq_1)\n',
    );
    expect(rawRefusal(refusal)).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
  });

  it("407 asks for Basic credentials", () => {
    const refusal = renderRefusal(PROXY_ERRORS.leaseRequired, { host: "x", reason: "none", requestId: "r" });
    expect(refusal.headers["proxy-authenticate"]).toBe('Basic realm="baton-proxy"');
  });
});

describe("collectClientHello", () => {
  const hello = () =>
    new Promise<Buffer>((resolve) => {
      const server = createServer((socket) => {
        socket.once("data", (data) => {
          resolve(data);
          socket.destroy();
          server.close();
        });
      }).listen(0, "127.0.0.1", () => {
        const port = (server.address() as { port: number }).port;
        tlsConnect({ host: "127.0.0.1", port, servername: "api.acme.test" }).on("error", () => {});
      });
    });
  const recordOf = (part: Buffer) =>
    Buffer.concat([Buffer.from([22, 3, 1, part.length >> 8, part.length & 255]), part]);

  it("a whole hello, one split across records, and one arriving in pieces all give the server name", async () => {
    const whole = await hello();
    const done = collectClientHello(whole);
    expect(done.done && done.tls && done.hello && readClientHelloSni(done.hello)).toBe("api.acme.test");
    const body = whole.subarray(5);
    const split = Buffer.concat([
      recordOf(body.subarray(0, 10)),
      recordOf(body.subarray(10, 60)),
      recordOf(body.subarray(60)),
    ]);
    const joined = collectClientHello(split);
    expect(joined.done && joined.tls && joined.hello && readClientHelloSni(joined.hello)).toBe(
      "api.acme.test",
    );
    expect(collectClientHello(split.subarray(0, split.length - 1))).toEqual({ done: false });
    expect(collectClientHello(whole.subarray(0, 3))).toEqual({ done: false });
  });

  it("not TLS is done at once; a hello that never completes within the limit is unreadable", () => {
    expect(collectClientHello(Buffer.from("GET / HTTP/1.1\r\n"))).toEqual({ done: true, tls: false });
    expect(collectClientHello(Buffer.alloc(0))).toEqual({ done: false });
    const endless = Buffer.concat([Buffer.from([22, 3, 1, 0xff, 0xff]), Buffer.alloc(MAX_HELLO_BYTES)]);
    expect(collectClientHello(endless)).toEqual({ done: true, tls: true, hello: null });
  });
});
