// The three listeners (DESIGN "Handlers and listeners"): each serves only its surfaces and answers 404 for every
// other path, so a box (whose forwarder reaches the sandbox listener) never meets the admin API, the public API,
// the OpenAPI document or the egress proxy's internal routes. In-process: each listener's handler is called with
// app.request(), no socket.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROXY_INTERNAL_PATHS, PROXY_TOKEN_HEADER } from "../../../src/proxy/lease/wire.js";
import type { ListenerName } from "../../../src/server/app.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { CODEHOST_GIT_BASE_PATH } from "../../../src/server/surfaces/git/git-http.js";
import {
  ADMIN_PATHS,
  HEADERS,
  PATHS,
  PROXY_REFUSALS_PATH,
  ROUTE_PATTERNS,
} from "../../../src/transport/wire.js";
import {
  ADMIN_TOKEN,
  type Credentials,
  createHarness,
  type Harness,
  opsHeaders,
  PROXY_TOKEN,
} from "./harness.js";

let harness: Harness;
let creds: Credentials;
beforeAll(async () => {
  harness = await createHarness({ proxyToken: PROXY_TOKEN });
  creds = await harness.sandbox("ws_acme", "eng-listeners");
});
afterAll(async () => {
  await harness?.close();
});

type Probe = { method: string; path: string; headers: () => Record<string, string>; body?: unknown };

/** One request per surface, each with the credentials that surface takes, so only routing can refuse it. */
const PROBES: Record<string, Probe> = {
  "POST /admin/v1/sandboxes": {
    method: "POST",
    path: ADMIN_PATHS.sandboxes,
    headers: () => ({ [HEADERS.adminToken]: ADMIN_TOKEN }),
    body: { workspaceId: "ws_acme", engagementId: "eng-probe" },
  },
  "POST /internal/v1/proxy/lease": {
    method: "POST",
    path: PROXY_INTERNAL_PATHS.lease,
    headers: () => ({ [PROXY_TOKEN_HEADER]: PROXY_TOKEN }),
    body: { lease: "btl_not-a-lease" },
  },
  "GET /v1/me": { method: "GET", path: API_PATHS.me, headers: () => ({}) },
  "GET /openapi.json": { method: "GET", path: ROUTE_PATTERNS.openapi, headers: () => ({}) },
  "GET /healthz": { method: "GET", path: ROUTE_PATTERNS.health, headers: () => ({}) },
  "GET /ops/v1/proxy/refusals": {
    method: "GET",
    path: PROXY_REFUSALS_PATH,
    headers: () => opsHeaders(creds),
  },
  "GET /codehost/v1/git/…/info/refs": {
    method: "GET",
    path: `${CODEHOST_GIT_BASE_PATH}/acme/api.git/info/refs?service=git-upload-pack`,
    headers: () => ({}),
  },
};

/** What each probe answers on the listener that serves it (404 `not_found` everywhere else). */
const SERVED: Record<ListenerName, Record<string, number>> = {
  public: { "GET /v1/me": 401, "GET /openapi.json": 200, "GET /healthz": 200 },
  sandbox: { "GET /ops/v1/proxy/refusals": 200, "GET /codehost/v1/git/…/info/refs": 401 },
  // The admin listener serves the operator's document (issue 35 A.10); the sandbox listener serves none.
  admin: { "POST /admin/v1/sandboxes": 201, "POST /internal/v1/proxy/lease": 404, "GET /openapi.json": 200 },
};

async function probe(listener: ListenerName, name: string): Promise<{ status: number; body: unknown }> {
  const { method, path, headers, body } = PROBES[name]!;
  const response = await harness.app.listeners[listener].request(path, {
    method,
    headers: { "content-type": "application/json", ...headers() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text.startsWith("{") ? JSON.parse(text) : text };
}

describe.each(["public", "sandbox", "admin"] as const)("the %s listener", (listener) => {
  it.each(Object.keys(PROBES))("%s: served here, or 404 as if it did not exist", async (name) => {
    const answer = await probe(listener, name);
    const expected = SERVED[listener][name];
    if (expected === undefined) {
      expect(answer.status).toBe(404);
      expect(answer.body).toMatchObject({ error: "not_found", reason: "no such route" });
    } else {
      expect(answer.status).toBe(expected);
      // A 404 the route itself gives (an unknown lease) is not the routing 404.
      if (expected === 404) expect(answer.body).not.toMatchObject({ reason: "no such route" });
    }
  });
});

describe("the sandbox listener", () => {
  it("serves the whole operations transport: an activation starts and is read back", async () => {
    const started = await harness.app.listeners.sandbox.request(PATHS.operations, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...opsHeaders(creds),
        [HEADERS.idempotencyKey]: "listeners-1",
      },
      body: JSON.stringify({ kind: "env.activate", repository: "acme/api" }),
    });
    expect([200, 201, 202]).toContain(started.status);
    const { id } = (await started.json()) as { id: string };
    const read = await harness.app.listeners.sandbox.request(PATHS.operation(id), {
      headers: opsHeaders(creds),
    });
    expect(read.status).toBe(200);
  });

  it("a method a path does not take is 405 only for its own routes", async () => {
    expect((await harness.app.listeners.sandbox.request(PATHS.operations, { method: "DELETE" })).status).toBe(
      405,
    );
    expect(
      (await harness.app.listeners.sandbox.request(ROUTE_PATTERNS.health, { method: "POST" })).status,
    ).toBe(404);
  });
});
