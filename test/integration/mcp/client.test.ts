// The SDK's own client (@modelcontextprotocol/client 2.4.0) against a real `baton serve` on loopback, in both
// eras: the modern era pinned to 2026-07-28 (no handshake) and the client's default legacy handshake. It lists
// the tools and follows a task through whoami, start_task, get_messages, follow_up and stop_task; a refusal is
// a tool execution error; over the budget the endpoint answers 429 with Retry-After. Nothing is faked.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MCP_LIMITS, MCP_PATH, MODERN_PROTOCOL_VERSION } from "../../../src/server/surfaces/mcp/wire.js";
import { killLeftoverServes, LOUD, type ServeHandle, startServe } from "../../helpers/serve.js";
import { API_SEED, CANARIES, TOKENS, until } from "../api/harness.js";

let serve: ServeHandle;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mcp-client-"));
  const seed = JSON.parse(await readFile(API_SEED, "utf8"));
  // A member whose token only the budget test uses, so the other tests' calls do not count against it.
  seed.workspaces[0].members.push({
    email: "budget@acme.test",
    role: "member",
    name: "Bud Get",
    token: BUDGET,
  });
  await writeFile(join(dir, "seed.json"), JSON.stringify(seed));
  serve = await startServe({ seed: join(dir, "seed.json"), env: LOUD });
});
afterAll(async () => {
  const printed = `${serve?.stdout() ?? ""}${serve?.stderr() ?? ""}`;
  for (const canary of [...CANARIES, BUDGET]) expect(printed).not.toContain(canary);
  await serve?.stop();
  await killLeftoverServes();
  await rm(dir, { recursive: true, force: true });
});

const BUDGET = "btn_budget-acme-0000000000000000";

type Era = "modern" | "legacy";

async function connect(era: Era, token: string = TOKENS.owner): Promise<Client> {
  const client = new Client(
    { name: "baton-test", version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: MODERN_PROTOCOL_VERSION } } } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${serve.url}${MCP_PATH}`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

const json = (result: { content?: unknown }) =>
  JSON.parse((result.content as { type: string; text: string }[])[0]!.text);

describe.each(["modern", "legacy"] as const)("the SDK client, %s era", (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(era);
  });
  afterAll(async () => {
    await client?.close();
  });

  it("negotiates the era's version", () => {
    expect(client.getNegotiatedProtocolVersion()).toBe(
      era === "modern" ? MODERN_PROTOCOL_VERSION : "2025-11-25",
    );
  });

  it("lists the seven tools with titles and hints", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "follow_up",
      "get_messages",
      "get_task",
      "list_tasks",
      "start_task",
      "stop_task",
      "whoami",
    ]);
    expect(tools.find((t) => t.name === "stop_task")?.annotations).toMatchObject({ destructiveHint: true });
  });

  it("whoami, start_task, get_messages, follow_up, stop_task", async () => {
    const me = await client.callTool({ name: "whoami", arguments: {} });
    expect(me.structuredContent).toMatchObject({ user: { name: "Olive Owner" } });
    expect(json(me)).toEqual(me.structuredContent);

    const started = await client.callTool({
      name: "start_task",
      arguments: { workspace_id: "ws_acme", prompt: `quick ${era} check` },
    });
    expect(started.isError ?? false).toBe(false);
    const { task } = started.structuredContent as { task: { id: string; status: string } };
    expect(task.status).toBe("pending");
    const reply = await until(async () => {
      const page = await client.callTool({
        name: "get_messages",
        arguments: { workspace_id: "ws_acme", task_id: task.id },
      });
      const { messages } = page.structuredContent as { messages: { role: string; body: string }[] };
      return messages.find((m) => m.role === "agent");
    }, "the agent's reply");
    expect(reply.body).toBe(`Done: quick ${era} check`);

    const followed = await client.callTool({
      name: "follow_up",
      arguments: {
        workspace_id: "ws_acme",
        task_id: task.id,
        text: "slow: now the docs",
        idempotency_key: `fu-${era}`,
      },
    });
    expect(followed.structuredContent).toEqual({ messageId: `fu-${era}` });
    const stopped = await until(async () => {
      const answer = await client.callTool({
        name: "stop_task",
        arguments: { workspace_id: "ws_acme", task_id: task.id },
      });
      return answer.isError ? undefined : answer;
    }, "the follow-up's turn to be stoppable");
    expect(stopped.structuredContent).toEqual({ accepted: true });
  });

  it("a refusal is a tool execution error with a clear message", async () => {
    const refused = await client.callTool({
      name: "get_task",
      arguments: { workspace_id: "ws_someone_elses", task_id: "task_x" },
    });
    expect(refused.isError).toBe(true);
    expect((refused.content as { text: string }[])[0]!.text).toBe(
      "not_found: no such workspace; the whoami tool lists yours",
    );
    const invalid = await client.callTool({
      name: "list_tasks",
      arguments: { workspace_id: "ws_acme", limit: 0 },
    });
    expect(invalid.isError).toBe(true);
    expect((invalid.content as { text: string }[])[0]!.text).toMatch(
      /limit must be a whole number from 1 to 100/,
    );
  });
});

describe("the budget over a socket", () => {
  it("the 121st call of a minute is answered 429 with Retry-After", async () => {
    const client = await connect("modern", BUDGET);
    let accepted = 0;
    let refusal: unknown;
    try {
      // Sequential calls until the endpoint refuses one; connect() may have spent one call on server/discover.
      while (refusal === undefined && accepted <= MCP_LIMITS.callsPerMinute)
        await client.callTool({ name: "whoami", arguments: {} }).then(
          () => accepted++,
          (error: unknown) => {
            refusal = error;
          },
        );
    } finally {
      await client.close();
    }
    expect(accepted).toBeGreaterThanOrEqual(MCP_LIMITS.callsPerMinute - 1);
    expect(accepted).toBeLessThanOrEqual(MCP_LIMITS.callsPerMinute);
    expect(String(refusal)).toMatch(/429|budget/);
    const over = await fetch(`${serve.url}${MCP_PATH}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${BUDGET}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(over.status).toBe(429);
    expect(Number(over.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await over.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32003 } });
  });
});
