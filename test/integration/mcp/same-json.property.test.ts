// Property: the MCP tools and the public API's routes give identical JSON for the same data (reference section 4:
// "the same JSON as the HTTP routes"), over generated tasks and follow-ups (fast-check, seeded for replay). For
// each generated world: whoami = GET /v1/me, list_tasks = GET .../tasks, get_task = GET .../tasks/:id,
// get_messages = GET .../messages, both as structured content and as the text content. The turn runtime runs
// while we read, so each comparison is sandwiched between two HTTP reads and counts only when they agree (polled
// until a deadline). The clock moves a minute per run so no rate budget is what answers.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiHarness, createApiHarness, TOKENS } from "../api/harness.js";

const VERSION = "2026-07-28";
const WS = "ws_acme";

describe("MCP tools and HTTP routes give identical JSON for the same data", () => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await createApiHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  async function callTool(name: string, args: Record<string, unknown>) {
    const response = await h.app.http.request("/v1/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${TOKENS.owner}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": VERSION,
        "mcp-method": "tools/call",
        "mcp-name": name,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name,
          arguments: args,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": VERSION,
            "io.modelcontextprotocol/clientInfo": { name: "property", version: "1" },
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    const body = (await response.json()) as {
      result: { isError?: boolean; structuredContent: unknown; content: { type: string; text: string }[] };
    };
    expect(response.status, JSON.stringify(body)).toBe(200);
    expect(body.result.isError ?? false, JSON.stringify(body.result.content)).toBe(false);
    return body.result;
  }

  const http = async (path: string) => {
    const answer = await h.call("GET", path, { token: TOKENS.owner });
    expect(answer.status).toBe(200);
    return answer.body as unknown;
  };

  /** Polls until an MCP answer is read between two equal HTTP answers; then both must be the same JSON. */
  async function expectSame(name: string, args: Record<string, unknown>, path: string) {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const before = await http(path);
      const result = await callTool(name, args);
      const after = await http(path);
      if (JSON.stringify(before) === JSON.stringify(after)) {
        expect(result.structuredContent, `${name} structured content vs GET ${path}`).toEqual(before);
        expect(JSON.parse(result.content[0]!.text), `${name} text vs GET ${path}`).toEqual(before);
        return;
      }
      if (Date.now() > deadline) throw new Error(`GET ${path} never held still for a comparison`);
    }
  }

  const text = fc
    .string({ unit: "grapheme", minLength: 1, maxLength: 120 })
    .filter((s) => s.trim().length > 0);
  const task = fc.record({
    prompt: text,
    title: fc.option(
      fc.string({ minLength: 1, maxLength: 60 }).filter((s) => s.trim().length > 0),
      {
        nil: undefined,
      },
    ),
    repo: fc.constantFrom(undefined, "acme/api"),
    followUps: fc.array(text, { maxLength: 3 }),
  });

  it("for generated tasks and follow-ups (whoami, list_tasks, get_task, get_messages)", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(task, { minLength: 1, maxLength: 3 }), async (tasks) => {
        h.clock.offsetMs += 61_000;
        const ids: string[] = [];
        for (const t of tasks) {
          const started = await h.call("POST", `/v1/workspaces/${WS}/tasks`, {
            token: TOKENS.owner,
            body: {
              prompt: t.prompt,
              ...(t.title ? { title: t.title } : {}),
              ...(t.repo ? { repo: t.repo } : {}),
            },
          });
          expect(started.status, JSON.stringify(started.body)).toBe(202);
          const id = started.body.task.id as string;
          ids.push(id);
          for (const followUp of t.followUps) {
            const sent = await h.call("POST", `/v1/workspaces/${WS}/tasks/${id}/messages`, {
              token: TOKENS.owner,
              body: { text: followUp },
            });
            expect([202, 409]).toContain(sent.status);
          }
        }
        await expectSame("whoami", {}, "/v1/me");
        await expectSame("list_tasks", { workspace_id: WS, limit: 5 }, `/v1/workspaces/${WS}/tasks?limit=5`);
        for (const id of ids) {
          const base = { workspace_id: WS, task_id: id };
          await expectSame("get_task", base, `/v1/workspaces/${WS}/tasks/${id}`);
          await expectSame("get_messages", base, `/v1/workspaces/${WS}/tasks/${id}/messages`);
        }
        // A person has at most 5 tasks running: stop this run's, so the next run can start its own.
        for (const id of ids) {
          const stopped = await h.call("POST", `/v1/workspaces/${WS}/tasks/${id}/stop`, {
            token: TOKENS.owner,
          });
          expect([200, 202, 409]).toContain(stopped.status);
        }
      }),
      { numRuns: 12, seed: 2311 },
    );
  }, 120_000);
});
