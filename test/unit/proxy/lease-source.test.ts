// The proxy's lease cache against a stand-in for baton serve's internal route on a real loopback socket: an answer
// is reused for leaseCacheSeconds, so a lease revoked in the service stops working within that time; an expired
// lease is refused at once even from the cache; a failed look-up is never cached. The clock is injected so the
// test does not wait.
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpLeaseSource } from "../../../src/proxy/lease/http-source.js";
import { PROXY_INTERNAL_PATHS, PROXY_TOKEN_HEADER } from "../../../src/proxy/lease/wire.js";

const TOKEN = "lease-source-test-token";
let server: Server;
let url = "";
let answer: { status: number; expiresAtMs: number } = { status: 200, expiresAtMs: 0 };
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on("end", () => {
      asked.push(`${req.url} ${req.headers[PROXY_TOKEN_HEADER]} ${body}`);
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(
        answer.status === 200
          ? JSON.stringify({
              sandboxId: "sbx_1",
              workspaceId: "ws_1",
              engagementId: "eng_1",
              leaseExpiresAt: new Date(answer.expiresAtMs).toISOString(),
              secrets: [],
            })
          : "{}",
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the lease cache", () => {
  it("reuses an answer for the cache time: a revoked lease works until then, and not after", async () => {
    let clock = 1_000_000;
    const source = createHttpLeaseSource({ serveUrl: url, token: TOKEN, cacheMs: 5_000, now: () => clock });
    answer = { status: 200, expiresAtMs: clock + 3_600_000 };
    asked.length = 0;
    expect((await source.lookup("btl_revoked"))?.sandboxId).toBe("sbx_1");
    expect(asked).toEqual([`${PROXY_INTERNAL_PATHS.lease} ${TOKEN} {"lease":"btl_revoked"}`]);
    answer = { status: 404, expiresAtMs: 0 };
    clock += 4_999;
    expect((await source.lookup("btl_revoked"))?.sandboxId).toBe("sbx_1");
    expect(asked.length).toBe(1);
    clock += 2;
    expect(await source.lookup("btl_revoked")).toBeNull();
    expect(asked.length).toBe(2);
  });

  it("refuses a lease past its expiry at once, even while its answer is cached", async () => {
    let clock = 2_000_000;
    const source = createHttpLeaseSource({ serveUrl: url, token: TOKEN, cacheMs: 60_000, now: () => clock });
    answer = { status: 200, expiresAtMs: clock + 1_000 };
    expect(await source.lookup("btl_short")).not.toBeNull();
    clock += 1_000;
    expect(await source.lookup("btl_short")).toBeNull();
  });

  it("never caches a failed look-up (the next request asks again)", async () => {
    const source = createHttpLeaseSource({
      serveUrl: url,
      token: TOKEN,
      cacheMs: 60_000,
      now: () => 3_000_000,
    });
    answer = { status: 500, expiresAtMs: 0 };
    asked.length = 0;
    await expect(source.lookup("btl_flaky")).rejects.toThrow(/answered 500/);
    answer = { status: 200, expiresAtMs: 3_000_000 + 60_000 };
    await new Promise((resolve) => setImmediate(resolve));
    expect((await source.lookup("btl_flaky"))?.sandboxId).toBe("sbx_1");
    expect(asked.length).toBe(2);
  });
});
