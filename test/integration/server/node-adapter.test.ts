// The Node adapter through real sockets against a real `baton serve` child process: bodies are bounded while they
// stream (auth first, 413 as the limit passes, the process never buffers a huge upload), headers are bounded by
// Node's parser, and the Host header never picks a route. Memory is the child's own peak RSS (VmHWM in
// /proc/<pid>/status), read after each upload.
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_HEADER_BYTES } from "../../../src/server/surfaces/http/node-server.js";
import { ADMIN_PATHS, HEADERS, PATHS } from "../../../src/transport/wire.js";
import { killLeftoverServes, type ServeHandle, startServe, TEST_ADMIN_TOKEN } from "../../helpers/serve.js";
import { SEED_PATH } from "./harness.js";

const MiB = 1024 * 1024;
/** Growth allowed over the peak before an upload: far below any buffered body, above allocator noise. */
const RSS_HEADROOM = 48 * MiB;

let serve: ServeHandle;
let ops: Record<string, string>;

beforeAll(async () => {
  serve = await startServe({ seed: SEED_PATH });
  const response = await serve.admin(ADMIN_PATHS.sandboxes, {
    workspaceId: "ws_acme",
    engagementId: "eng-adapter",
  });
  const creds = (await response.json()) as { turnToken: string; lease: string };
  ops = {
    [HEADERS.authorization]: `Bearer ${creds.turnToken}`,
    [HEADERS.sandboxLease]: creds.lease,
    [HEADERS.idempotencyKey]: "adapter-key",
  };
});
afterAll(async () => {
  await serve?.stop();
  await killLeftoverServes();
});

function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").match(/^VmHWM:\s+(\d+) kB$/m);
  return Number(line![1]) * 1024;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** Body bytes the client managed to write before the answer came. */
  sent: number;
}

/** Sends `total` bytes of body in 1 MiB writes (with backpressure), stopping as soon as an answer arrives. */
function upload(
  path: string,
  headers: Record<string, string>,
  total: number,
  framing: "content-length" | "chunked",
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    // Only the operations transport takes these bodies: it is on the sandbox listener.
    const req = request(new URL(path, serve.opsUrl), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...headers,
        ...(framing === "content-length" ? { "content-length": String(total) } : {}),
      },
    });
    const chunk = Buffer.alloc(MiB, 0x20);
    let sent = 0;
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (text: string) => {
        body += text;
      });
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body, sent }));
      res.on("error", reject);
    });
    // Once answered, the server drops the rest: the write side may then fail, which is the point.
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunk.length;
        if (!req.write(chunk)) {
          req.once("drain", pump);
          return;
        }
      }
      if (!answered) req.end();
    };
    pump();
  });
}

/** One request with exactly the headers given (Host included), read to the end. */
function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Omit<Answer, "sent">> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, serve.url), { method, headers, setHost: !("host" in headers) });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("request bodies are bounded while they stream", () => {
  it("a 600 MB unauthenticated POST to /ops/v1/operations answers 401 without the process growing", async () => {
    const before = peakRss(serve.child.pid!);
    const answer = await upload(PATHS.operations, {}, 600 * MiB, "content-length");
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body)).toMatchObject({ error: "invalid_token" });
    expect(answer.sent).toBeLessThan(600 * MiB);
    expect(peakRss(serve.child.pid!)).toBeLessThan(before + RSS_HEADROOM);
  });

  it.each([
    ["content-length", "at once, from the header"],
    ["chunked", "as the stream passes the limit"],
  ] as const)("a 100 MB body with valid credentials answers 413 (%s: %s)", async (framing, _when) => {
    const before = peakRss(serve.child.pid!);
    const answer = await upload(PATHS.operations, ops, 100 * MiB, framing);
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: "payload_too_large",
      reason: "operation request is over 16 KiB; send less",
      requestId: answer.headers[HEADERS.requestId],
    });
    expect(answer.sent).toBeLessThan(100 * MiB);
    expect(peakRss(serve.child.pid!)).toBeLessThan(before + RSS_HEADROOM);
    // The service still answers afterwards.
    expect((await send("GET", "/healthz", {})).status).toBe(200);
  });
});

describe("headers are bounded by Node's parser", () => {
  it(`headers over ${MAX_HEADER_BYTES / 1024} KiB answer 431; just under the bound is served`, async () => {
    const filler = (bytes: number) => ({ "x-filler": "a".repeat(bytes) });
    expect((await send("GET", "/healthz", filler(MAX_HEADER_BYTES - 1024))).status).toBe(200);
    expect((await send("GET", "/healthz", filler(MAX_HEADER_BYTES + 1024))).status).toBe(431);
  });
});

describe("the Host header never picks a route", () => {
  it("Host: x/openapi.json? on /nope is refused, never answered with the document", async () => {
    const answer = await send("GET", "/nope", { host: "x/openapi.json?" });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: "invalid_request",
      reason: expect.stringContaining("send Host as host[:port]"),
    });
    expect(answer.body).not.toContain("openapi");
    // A well-formed Host of any name leaves the path in charge.
    expect((await send("GET", "/nope", { host: "x.test" })).status).toBe(404);
    expect((await send("GET", "/openapi.json", { host: "x.test" })).status).toBe(200);
  });

  it("POST /healthz with Host: x/admin/v1/seed? never reaches the admin API", async () => {
    const seed = JSON.stringify({ workspaces: [{ id: "ws_via_host", name: "Via Host" }] });
    const headers = {
      "content-type": "application/json",
      [HEADERS.adminToken]: TEST_ADMIN_TOKEN,
      "content-length": String(Buffer.byteLength(seed)),
    };
    const answer = await send("POST", "/healthz", { ...headers, host: "x/admin/v1/seed?" }, seed);
    expect(answer.status).toBe(400);
    // With a well-formed Host the path decides: /healthz has no POST.
    expect((await send("POST", "/healthz", { ...headers, host: "x.test" }, seed)).status).toBe(405);
    const sandbox = await serve.admin(ADMIN_PATHS.sandboxes, {
      workspaceId: "ws_via_host",
      engagementId: "e",
    });
    expect(sandbox.status).toBe(404); // the seed was never applied
  });
});
