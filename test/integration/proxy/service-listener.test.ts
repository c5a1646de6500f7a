// `startProxyService` on a socket its caller bound first (as `baton env test` does, to hand the port to the
// sandbox driver while the proxy's modules load): the proxy answers on that port, reports it as its URL, and
// closing the proxy closes the port. The lease source points at a closed port: this test needs no service.
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, expect, it } from "vitest";
import { startProxyService } from "../../../src/proxy/service.js";

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function get(port: number, target: string): Promise<{ status: number; error: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path: target,
      agent: false,
      headers: { host: new URL(target).host },
    });
    req.once("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, error: res.headers["baton-proxy-error"] as string | undefined });
    });
    req.once("error", reject);
    req.end();
  });
}

it("takes over a listener bound before it started, and closes it when stopped", async () => {
  const dir = await mkdtemp(join(tmpdir(), "baton-envproxy-listener-"));
  dirs.push(dir);
  const listener = createServer((early) => early.destroy());
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const address = listener.address();
  const port = typeof address === "object" && address ? address.port : 0;

  const service = await startProxyService({
    host: "0.0.0.0", // ignored: the listener's address wins
    port: 0,
    listener,
    serveUrl: "http://127.0.0.1:1",
    token: "test-proxy-token",
    stateDir: join(dir, "state"),
    auditFile: join(dir, "audit.log"),
    logger: pino({ level: "silent" }),
  });
  expect(service.url).toBe(`http://127.0.0.1:${port}`);
  // The proxy itself answers on that port: a request without a lease is refused with its header.
  const answer = await get(port, "http://169.254.169.254/latest/meta-data/");
  expect(answer).toEqual({ status: 407, error: "lease_required" });

  await service.stop(1_000);
  await expect(get(port, "http://169.254.169.254/")).rejects.toMatchObject({ code: "ECONNREFUSED" });
});
