// Routing of the composed app, without a socket: a path names one route (with its parameters decoded), a path that
// exists under another method is 405 naming the allowed ones, anything else is 404; every refusal is the JSON
// error body with the request id that the header carries.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApiDocument } from "../../../src/server/openapi-document.js";
import { API_ROUTE_PATTERNS } from "../../../src/server/surfaces/api/wire.js";
import { MCP_PATH } from "../../../src/server/surfaces/mcp/wire.js";
import { WEBHOOK_ROUTE_PATTERNS } from "../../../src/server/surfaces/webhooks/wire.js";
import {
  ADMIN_PATHS,
  CAPABILITY_ROUTE_PATTERNS,
  HEADERS,
  ROUTE_PATTERNS,
} from "../../../src/transport/wire.js";
import { type Credentials, createHarness, type Harness, opsHeaders } from "./harness.js";

let harness: Harness;
let creds: Credentials;
beforeAll(async () => {
  harness = await createHarness();
  creds = await harness.sandbox("ws_acme", "eng-routing");
});
afterAll(async () => {
  await harness.close();
});

async function refusal(method: string, path: string) {
  const response = await harness.request(method, path, { headers: opsHeaders(creds) });
  const body = (await response.json()) as { error: string; reason: string; requestId: string };
  expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
  expect(response.headers.get(HEADERS.requestId)).toBe(body.requestId);
  return { status: response.status, allow: response.headers.get("allow"), ...body };
}

describe("routing", () => {
  it.each([
    ["GET", "/ops/v1/operations/op_1"],
    ["GET", "/ops/v1/operations/a%2Fb/overlay"],
    ["GET", "/ops/v1/operations/op_1/overlay"],
  ])("%s %s reaches its route (the operation, not the path, is missing)", async (method, path) => {
    expect(await refusal(method, path)).toMatchObject({ status: 404, reason: "no such operation" });
  });

  it.each([
    ["GET", "/ops/v1/operations/"],
    ["GET", "/ops/v1/nothing"],
    ["GET", "/nope"],
    ["POST", "/ops/v1/operations/op_1/overlay/extra"],
  ])("%s %s is 404 no such route", async (method, path) => {
    expect(await refusal(method, path)).toMatchObject({
      status: 404,
      error: "not_found",
      reason: "no such route",
    });
  });

  it.each([
    ["DELETE", "/ops/v1/operations/op_1", "GET"],
    ["GET", "/ops/v1/operations", "POST"],
    ["POST", "/healthz", "GET"],
    ["GET", "/admin/v1/seed", "POST"],
  ])("%s %s is 405 and allows %s", async (method, path, allow) => {
    expect(await refusal(method, path)).toMatchObject({ status: 405, error: "method_not_allowed", allow });
  });

  it("the routes served are exactly the patterns the wire contract names (the clients build paths from it)", () => {
    const wire = [
      ...Object.values(ROUTE_PATTERNS),
      ...Object.values(ADMIN_PATHS),
      ...Object.values(CAPABILITY_ROUTE_PATTERNS),
      ...Object.values(API_ROUTE_PATTERNS),
      MCP_PATH,
      ...Object.values(WEBHOOK_ROUTE_PATTERNS),
    ].map((pattern) => pattern.replace(/:([A-Za-z]+)/g, "{$1}"));
    const served = Object.keys((buildOpenApiDocument() as { paths: Record<string, unknown> }).paths);
    expect(served.sort()).toEqual([...new Set(wire)].sort());
  });
});
