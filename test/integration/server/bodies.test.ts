// Request bodies through the composed app, without a socket: auth before any byte is read, each route's limit
// enforced while the body streams (counted as the bytes the handler pulled), and the body's encoding and type
// refused with a reason naming what to fix.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEADERS, PATHS } from "../../../src/transport/wire.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { type Credentials, createHarness, type Harness, opsHeaders } from "./harness.js";

const KiB = 1024;
const MiB = 1024 * KiB;

let harness: Harness;
let creds: Credentials;
beforeAll(async () => {
  harness = await createHarness();
  creds = await harness.sandbox("ws_acme", "eng-bodies");
});
afterAll(async () => {
  await harness.close();
});

/** A body of `total` bytes that counts how much of it the service pulled. */
function countedBody(total: number) {
  const chunk = new Uint8Array(64 * KiB).fill(0x20);
  const counter = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (counter.pulled >= total) return controller.close();
      counter.pulled += chunk.length;
      controller.enqueue(chunk);
    },
  });
  return { stream, counter };
}

async function post(
  headers: Record<string, string>,
  body: string | Uint8Array | ReadableStream<Uint8Array>,
  contentType = "application/json",
) {
  const response = await harness.app.http.request(PATHS.operations, {
    method: "POST",
    headers: { "content-type": contentType, [HEADERS.idempotencyKey]: "bodies-key", ...headers },
    body,
    duplex: "half",
  } as RequestInit);
  return { status: response.status, ...((await response.json()) as { error: string; reason: string }) };
}

/** Every documented route that takes a body, with its path parameters filled in: a new route is covered too. */
const bodyRoutes: [string, string][] = Object.entries(
  JSON.parse(readFileSync(join(PROJECT_ROOT, "openapi", "baton-ops.json"), "utf8")).paths as Record<
    string,
    Record<string, { requestBody?: unknown }>
  >,
).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([, operation]) => operation.requestBody !== undefined)
    .map(([method]): [string, string] => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, "x")]),
);

describe("request bodies", () => {
  it("an unauthenticated caller is refused before a byte of its body is read", async () => {
    const { stream, counter } = countedBody(600 * MiB);
    expect(await post({}, stream)).toMatchObject({ status: 401, error: "invalid_token" });
    expect(counter.pulled).toBeLessThanOrEqual(64 * KiB); // at most the stream's own read-ahead
  });

  it("finds the routes that take a body", () => {
    expect(bodyRoutes.length).toBeGreaterThanOrEqual(8);
  });

  it.each(bodyRoutes)("%s %s checks credentials before it reads a byte of the body", async (method, path) => {
    const { stream, counter } = countedBody(600 * MiB);
    const response = await harness.app.http.request(path, {
      method,
      headers: { "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(401);
    expect(counter.pulled).toBeLessThanOrEqual(64 * KiB); // at most the stream's own read-ahead
  });

  it("a body over the route's limit is 413 as soon as it passes, before the rest is read", async () => {
    const { stream, counter } = countedBody(100 * MiB);
    expect(await post(opsHeaders(creds), stream)).toMatchObject({
      status: 413,
      error: "payload_too_large",
      reason: "operation request is over 16 KiB; send less",
    });
    expect(counter.pulled).toBeLessThan(1 * MiB);
  });

  it.each([
    ["not JSON", "{", "application/json", 400, "invalid_request", "operation request is not valid JSON"],
    [
      "invalid UTF-8",
      new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x7d]),
      "application/json",
      400,
      "invalid_request",
      "operation request is not valid UTF-8; send JSON encoded as UTF-8",
    ],
    [
      "not application/json",
      '{"kind":"env.activate","repository":"acme/api"}',
      "text/plain",
      415,
      "unsupported_media_type",
      "send the body as JSON with content-type: application/json",
    ],
    [
      "the wrong shape",
      '{"kind":"env.activate","repository":"nope"}',
      "application/json",
      400,
      "invalid_request",
      "operation request: repository: must be owner/name (letters, digits, '.', '_' or '-')",
    ],
  ])(
    "a body that is %s is refused with the reason naming the fix",
    async (_what, body, type, status, error, reason) => {
      expect(await post(opsHeaders(creds), body, type)).toEqual({
        status,
        error,
        reason,
        requestId: expect.any(String),
      });
    },
  );

  it("the longest capability request the schema allows, every character JSON-escaped, is under the limit", async () => {
    const escaped = (n: number) => "\\u0061".repeat(n);
    const body = `{"repository": "acme/api", "capability": "npm", "target": "${escaped(4096)}", "reason": "${escaped(8192)}"}`;
    const response = await harness.app.http.request(PATHS.capabilityRequests, {
      method: "POST",
      headers: { "content-type": "application/json", ...opsHeaders(creds) },
      body,
    });
    // Whatever the service thinks of the content, the size alone never refuses it.
    expect(response.status).not.toBe(413);
    expect(((await response.json()) as { error?: string }).error).not.toBe("payload_too_large");
  });
});
