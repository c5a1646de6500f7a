// Every rule of both eras of POST /v1/mcp (reference section 4 "MCP endpoint", 7 "MCP protocol errors"), the
// Origin rule, bearer-only auth and the body bound, table-driven through the public listener's handler.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endSignIn, recordAccessToken } from "../../../src/server/domain/auth/sign-ins.js";
import {
  LEGACY_PROTOCOL_VERSIONS,
  MCP_GATE_ERRORS,
  MCP_LIMITS,
  MCP_PATH,
  MODERN_PROTOCOL_VERSION,
} from "../../../src/server/surfaces/mcp/wire.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { type ApiHarness, CANARIES, createApiHarness, TOKENS } from "../api/harness.js";
import { callTool, legacy, META, modern, rpc } from "./rpc.js";

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness();
});
afterAll(async () => {
  // No token or seeded secret ever appears in an answer of this suite.
  for (const seen of h.seen) for (const canary of CANARIES) expect(seen.text).not.toContain(canary);
  await h.close();
});

const b64 = (text: string) => `=?base64?${Buffer.from(text).toString("base64")}?=`;

describe("modern era (2026-07-28)", () => {
  it("server/discover: supported versions, tools without listChanged, resultType complete, server info in _meta, one hour private", async () => {
    const { status, body } = await rpc(h, modern("server/discover"));
    expect(status).toBe(200);
    expect(body.result).toMatchObject({
      supportedVersions: expect.arrayContaining([MODERN_PROTOCOL_VERSION]),
      capabilities: { tools: { listChanged: false } },
      resultType: "complete",
      ttlMs: MCP_LIMITS.listCacheTtlMs,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "baton" } },
    });
  });

  it("tools/list: the seven tools, titled and hinted, with a one-hour private lifetime", async () => {
    const { body } = await rpc(h, modern("tools/list"));
    expect(body.result).toMatchObject({ ttlMs: 3_600_000, cacheScope: "private", resultType: "complete" });
    const tools = Object.fromEntries(
      (body.result.tools as { name: string }[]).map((t) => [t.name, t as Record<string, unknown>]),
    );
    expect(Object.keys(tools).sort()).toEqual(
      ["follow_up", "get_messages", "get_task", "list_tasks", "start_task", "stop_task", "whoami"].sort(),
    );
    for (const name of ["whoami", "list_tasks", "get_task", "get_messages"])
      expect(tools[name]!.annotations, name).toMatchObject({ readOnlyHint: true });
    for (const name of ["start_task", "follow_up"])
      expect(tools[name]!.annotations, name).toMatchObject({ readOnlyHint: false, openWorldHint: true });
    expect(tools.stop_task!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    for (const t of Object.values(tools)) {
      expect(t.title, String(t.name)).toEqual(expect.any(String));
      expect(t.outputSchema, String(t.name)).toMatchObject({ type: "object" });
    }
    expect(Object.keys((tools.start_task!.inputSchema as { properties: object }).properties).sort()).toEqual(
      ["idempotency_key", "prompt", "repo", "title", "workspace_id"].sort(),
    );
    expect(
      (tools.list_tasks!.inputSchema as { properties: { limit: object } }).properties.limit,
    ).toMatchObject({
      minimum: 1,
      maximum: 100,
    });
  });

  const whoami = () => callTool("whoami");
  const PROTOCOL_ERRORS: [string, () => unknown, Record<string, string | null>, number, number][] = [
    ["no MCP-Protocol-Version header", whoami, { "mcp-protocol-version": null }, 400, -32020],
    [
      "MCP-Protocol-Version not matching _meta",
      whoami,
      { "mcp-protocol-version": "2025-11-25" },
      400,
      -32020,
    ],
    ["no Mcp-Method header", whoami, { "mcp-method": null }, 400, -32020],
    ["Mcp-Method not the JSON-RPC method", whoami, { "mcp-method": "tools/list" }, 400, -32020],
    ["tools/call without Mcp-Name", whoami, { "mcp-name": null }, 400, -32020],
    ["Mcp-Name not params.name", whoami, { "mcp-name": "get_task" }, 400, -32020],
    ["Mcp-Name base64 of another name", whoami, { "mcp-name": b64("get_task") }, 400, -32020],
    [
      "no clientCapabilities in _meta",
      () => modern("tools/list", {}, { "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL_VERSION }),
      {},
      400,
      -32602,
    ],
    ["modern initialize", () => modern("initialize"), {}, 404, -32601],
    ["modern ping", () => modern("ping"), {}, 404, -32601],
    ["an unknown method", () => modern("resources/list"), {}, 404, -32601],
  ];
  it.each(PROTOCOL_ERRORS)("%s", async (_rule, message, headers, status, code) => {
    const answer = await rpc(h, message(), { headers });
    expect(answer.status).toBe(status);
    expect(answer.body.error.code).toBe(code);
  });

  it("an unsupported metadata version: 400 / -32022 listing the supported versions (as server/discover does)", async () => {
    const message = modern(
      "tools/list",
      {},
      { ...META, "io.modelcontextprotocol/protocolVersion": "2030-01-01" },
    );
    const answer = await rpc(h, message, { headers: { "mcp-protocol-version": "2030-01-01" } });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32022);
    const discovered = (await rpc(h, modern("server/discover"))).body.result.supportedVersions;
    expect(answer.body.error.data).toEqual({ supported: discovered, requested: "2030-01-01" });
    expect(discovered).toContain(MODERN_PROTOCOL_VERSION);
  });

  it("server/discover and -32022 list every version the endpoint accepts, the legacy ones too (issue 35 B.15)", async () => {
    const every = [MODERN_PROTOCOL_VERSION, ...LEGACY_PROTOCOL_VERSIONS];
    expect((await rpc(h, modern("server/discover"))).body.result.supportedVersions).toEqual(every);
    const unsupported = { ...META, "io.modelcontextprotocol/protocolVersion": "2030-01-01" };
    const answer = await rpc(h, modern("tools/list", {}, unsupported), {
      headers: { "mcp-protocol-version": "2030-01-01" },
    });
    expect(answer.body.error.data.supported).toEqual(every);
    // Each listed legacy version is one initialize really accepts.
    for (const version of LEGACY_PROTOCOL_VERSIONS) {
      const init = legacy("initialize", {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      });
      expect((await rpc(h, init)).body.result.protocolVersion).toBe(version);
    }
  });

  it("the server reports the package's version, not a constant (issue 35 B.15)", async () => {
    const { version } = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8"));
    const { body } = await rpc(h, modern("server/discover"));
    expect(body.result._meta["io.modelcontextprotocol/serverInfo"].version).toBe(version);
    const init = legacy("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    });
    expect((await rpc(h, init)).body.result.serverInfo.version).toBe(version);
  });

  it("Mcp-Name in its =?base64?...?= form is accepted", async () => {
    const answer = await rpc(h, whoami(), { headers: { "mcp-name": b64("whoami") } });
    expect(answer.status).toBe(200);
    expect(answer.body.result.structuredContent.user.name).toBe("Dev Eloper");
  });
});

describe("legacy era", () => {
  const init = (version: string) =>
    legacy("initialize", {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: "t", version: "1" },
    });

  it.each(LEGACY_PROTOCOL_VERSIONS)("initialize with %s answers that version", async (version) => {
    const { status, body } = await rpc(h, init(version));
    expect(status).toBe(200);
    expect(body.result).toMatchObject({
      protocolVersion: version,
      capabilities: { tools: { listChanged: false } },
      serverInfo: { name: "baton" },
    });
  });

  it("an unknown version negotiates to 2025-11-25", async () => {
    expect((await rpc(h, init("2099-01-01"))).body.result.protocolVersion).toBe("2025-11-25");
  });

  it("later requests send the negotiated version in MCP-Protocol-Version; a session id is ignored", async () => {
    const answer = await rpc(h, legacy("tools/call", { name: "whoami", arguments: {} }), {
      headers: { "mcp-protocol-version": "2025-06-18", "mcp-session-id": "made-up-session" },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("mcp-session-id")).toBeNull();
    expect(answer.body.result.structuredContent.user.name).toBe("Dev Eloper");
  });

  it("answers plain JSON to a client that accepts only application/json (ours: lenient, no event stream)", async () => {
    const answer = await rpc(h, legacy("tools/list"), {
      headers: { accept: "application/json", "mcp-protocol-version": "2025-11-25" },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/application\/json/);
    expect(answer.body.result.tools).toHaveLength(7);
  });

  it("a notification is accepted with 202", async () => {
    const answer = await rpc(h, { jsonrpc: "2.0", method: "notifications/initialized" });
    expect(answer.status).toBe(202);
  });
});

describe("both eras", () => {
  it.each([
    ["GET", {}],
    ["DELETE", {}],
    ["GET", { "mcp-protocol-version": MODERN_PROTOCOL_VERSION }],
    ["DELETE", { "mcp-protocol-version": "2025-11-25", "mcp-session-id": "s" }],
  ] as const)("%s answers 405 with a JSON-RPC error (%j)", async (method, headers) => {
    const answer = await rpc(h, undefined, { method, headers });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("POST");
    expect(answer.body).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: expect.any(Number) } });
  });

  it.each([
    ["null", 403],
    ["http://evil.example", 403],
    ["https://evil.example/", 403],
    ["https://chat.example.com", 200],
    ["http://localhost:6274", 200],
    ["http://[::1]:8080", 200],
  ])("Origin %s: %i", async (origin, status) => {
    const answer = await rpc(h, callTool("whoami"), { headers: { origin } });
    expect(answer.status).toBe(status);
    if (status === 403)
      expect(answer.body).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: MCP_GATE_ERRORS.forbiddenOrigin, message: expect.stringMatching(/Origin must be/) },
      });
  });

  it("a bad Origin is refused before authentication (403, not 401)", async () => {
    const answer = await rpc(h, callTool("whoami"), { token: null, headers: { origin: "null" } });
    expect(answer.status).toBe(403);
  });
});

describe("bearer-only authentication", () => {
  const metadata = `resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource${MCP_PATH}"`;
  it.each([
    ["no token", null, {}],
    ["an unknown personal token", "btn_unknown-000000000000000000000", {}],
    ["a malformed token", "not a token", {}],
    ["an unknown sign-in token", "A".repeat(43), {}],
    ["only a cookie (cookies never authenticate)", null, { cookie: `baton_session=${TOKENS.dev}` }],
  ] as const)("%s: 401 with WWW-Authenticate naming the resource metadata", async (_what, token, headers) => {
    for (const message of [callTool("whoami"), legacy("tools/list")]) {
      const answer = await rpc(h, message, { token, headers });
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toBe(`Bearer ${metadata}`);
      expect(answer.body).toMatchObject({
        jsonrpc: "2.0",
        id: null,
        error: { code: MCP_GATE_ERRORS.unauthorized, message: expect.stringMatching(/token|Bearer/) },
      });
    }
  });
});

describe("request bodies", () => {
  it("a body over the bound is refused with 413 before it is parsed", async () => {
    const prompt = "x".repeat(MCP_LIMITS.bodyBytes);
    const answer = await rpc(h, callTool("start_task", { workspace_id: "ws_acme", prompt }));
    expect(answer.status).toBe(413);
    expect(answer.body.error.code).toBe(MCP_GATE_ERRORS.payloadTooLarge);
  });

  it.each([
    ["modern", () => callTool("whoami")],
    ["legacy", () => legacy("tools/list")],
  ])("a body that is not application/json is refused with 415 (%s era)", async (_era, message) => {
    const answer = await rpc(h, message(), { headers: { "content-type": "text/plain" } });
    expect(answer.status).toBe(415);
    expect(answer.body.error.code).toEqual(expect.any(Number));
  });

  it("a body that is not JSON is a JSON-RPC parse error", async () => {
    const answer = await rpc(h, undefined, { raw: "{not json" });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe(-32700);
  });
});

describe("a token from the authorization server is good only on the resource it was issued for (RFC 8707)", () => {
  // Recorded as the provider records the tokens it issues (src/server/domain/auth/sign-ins.ts); the browser flow that issues them
  // is the OAuth suite's.
  const issue = async (resourceKind: "api" | "mcp", token: string) => {
    const user = (await h.db.get("SELECT id FROM users WHERE email = 'dev@acme.test'")) as { id: string };
    await recordAccessToken(
      h.db,
      {
        token,
        grantId: `grant-${resourceKind}-${token.slice(0, 6)}`,
        userId: user.id,
        clientId: "client-test",
        clientName: "Test App",
        resourceKind,
        expiresAtMs: Date.now() + 3_600_000,
      },
      Date.now(),
    );
    return token;
  };

  it("issued for /v1/mcp: accepted on MCP, refused on /v1", async () => {
    const token = await issue("mcp", `M${"c".repeat(42)}`);
    expect((await rpc(h, callTool("whoami"), { token })).status).toBe(200);
    expect((await h.call("GET", "/v1/me", { token })).status).toBe(401);
  });

  it("Disconnect (endSignIn) ends the app's sign-in at once: its next call is refused with 401", async () => {
    const token = await issue("mcp", `D${"d".repeat(42)}`);
    expect((await rpc(h, callTool("whoami"), { token })).status).toBe(200);
    expect(await endSignIn(h.db, `grant-mcp-${token.slice(0, 6)}`, Date.now())).toBe(true);
    const answer = await rpc(h, callTool("whoami"), { token });
    expect(answer.status).toBe(401);
    // Ending a sign-in forgets its tokens, so the token now reads as unknown.
    expect(answer.body.error.message).toMatch(/unknown/);
  });

  it("a sign-in past its 90 days is refused with a reason for an app, not for the baton command", async () => {
    const token = await issue("mcp", `E${"e".repeat(42)}`);
    await h.db.run("UPDATE oauth_access_tokens SET expires_at_ms = ? WHERE grant_id = ?", [
      Date.now() + 200 * 86_400_000,
      `grant-mcp-${token.slice(0, 6)}`,
    ]);
    h.clock.offsetMs += 91 * 86_400_000;
    try {
      const answer = await rpc(h, callTool("whoami"), { token });
      expect(answer.status).toBe(401);
      expect(answer.body.error.message).toBe(
        "the app's sign-in has passed its 90 days; connect the app again",
      );
    } finally {
      h.clock.offsetMs -= 91 * 86_400_000;
    }
  });

  it("issued for /v1 (baton login): refused on MCP with 401 and the resource metadata pointer", async () => {
    const token = await issue("api", `A${"p".repeat(42)}`);
    expect((await h.call("GET", "/v1/me", { token })).status).toBe(200);
    const answer = await rpc(h, callTool("whoami"), { token });
    expect(answer.status).toBe(401);
    expect(answer.headers.get("www-authenticate")).toMatch(/resource_metadata=".*\/v1\/mcp"/);
  });
});
