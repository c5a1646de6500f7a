// The dispatcher skips the SDK's era check for a body that carries the modern claim (the check runs again in the
// SDK's handler): that shortcut must never send to the modern handler a body the SDK would serve as legacy. Each
// body here is judged by both; whenever the shortcut says "modern", the SDK's isLegacyRequest says "not legacy".
import { isLegacyRequest } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { carriesModernClaim } from "../../../../../src/server/surfaces/mcp/dispatch.js";

const CLAIM = "io.modelcontextprotocol/protocolVersion";
const meta = { [CLAIM]: "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };

const BODIES: [string, unknown, boolean][] = [
  [
    "a modern tools/call",
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", _meta: meta } },
    true,
  ],
  [
    "a modern notification",
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { _meta: meta } },
    true,
  ],
  [
    "a claim naming an unknown version",
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { [CLAIM]: "1999-01-01" } } },
    true,
  ],
  [
    "a claim that is not a string",
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { [CLAIM]: 7 } } },
    true,
  ],
  ["no jsonrpc member, with a claim", { id: 1, method: "tools/list", params: { _meta: meta } }, true],
  [
    "initialize with a claim",
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", _meta: { [CLAIM]: 7 } },
    },
    false,
  ],
  [
    "legacy initialize",
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
    },
    false,
  ],
  ["a legacy tools/call", { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami" } }, false],
  [
    "a response carrying a method and a claim",
    { jsonrpc: "2.0", id: 1, method: "x", result: {}, params: { _meta: meta } },
    false,
  ],
  ["a batch with a claim", [{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: meta } }], false],
  [
    "_meta that is an array",
    { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: [CLAIM] } },
    false,
  ],
  ["no params", { jsonrpc: "2.0", id: 1, method: "tools/list" }, false],
  ["not an object", "tools/list", false],
];

const post = () =>
  new Request("http://127.0.0.1/v1/mcp", { method: "POST", headers: { "content-type": "application/json" } });

describe("the modern claim shortcut agrees with the SDK's era check", () => {
  it.each(BODIES)("%s", async (_name, body, modern) => {
    expect(carriesModernClaim(body)).toBe(modern);
    if (modern) expect(await isLegacyRequest(post(), body)).toBe(false);
  });
});
