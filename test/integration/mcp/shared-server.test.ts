// The MCP tool servers are built once per process and shared by every request (issue 36 point 3): the caller
// travels with each request, never with the instance, so concurrent calls of different callers each see only
// their own data, in both eras, while instances are handed from one request to the next; and a run of calls
// builds no server per call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { SERVER_POOLS } from "../../../src/server/surfaces/mcp/server.js";
import { type ApiHarness, CANARIES, createApiHarness, freshToken, TOKENS } from "../api/harness.js";
import { callTool, legacy, rpc } from "./rpc.js";

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness();
});
afterAll(async () => {
  for (const seen of h.seen) for (const canary of CANARIES) expect(seen.text).not.toContain(canary);
  await h.close();
});

/** One tools/call in either era as `token`; its structured answer, or its refusal's text. */
async function call(
  era: "modern" | "legacy",
  token: string,
  name: string,
  args: Record<string, unknown> = {},
) {
  const message = era === "modern" ? callTool(name, args) : legacy("tools/call", { name, arguments: args });
  const answer = await rpc(h, message, { token });
  expect(answer.status, answer.text).toBe(200);
  const result = answer.body.result;
  return result.isError ? { refused: result.content[0].text as string } : result.structuredContent;
}

describe("one set of tool servers for every caller", () => {
  it("concurrent calls of two callers each see only their own data, in both eras", async () => {
    const started = await h.call("POST", API_PATHS.tasks("ws_acme"), {
      body: { prompt: "the dev's own task" },
    });
    expect(started.status).toBe(202);
    const devTask = started.body.task.id as string;
    const me = {
      dev: (await h.call("GET", API_PATHS.me)).body,
      stranger: (await h.call("GET", API_PATHS.me, { token: TOKENS.stranger })).body,
    };
    expect(me.dev).not.toEqual(me.stranger);
    const devTaskBody = (await h.call("GET", API_PATHS.task("ws_acme", devTask))).body;

    // Each round sends every pair at once, so requests of both callers overlap on the shared instances; the
    // rounds reuse instances the previous round gave back.
    for (let round = 0; round < 3; round++) {
      const checks: Promise<void>[] = [];
      for (const era of ["modern", "legacy"] as const)
        for (let i = 0; i < 3; i++) {
          checks.push(
            call(era, TOKENS.dev, "whoami").then((answer) => expect(answer).toEqual(me.dev)),
            call(era, TOKENS.stranger, "whoami").then((answer) => expect(answer).toEqual(me.stranger)),
            call(era, TOKENS.dev, "get_task", { workspace_id: "ws_acme", task_id: devTask }).then((answer) =>
              expect(answer).toMatchObject({ id: devTask, title: devTaskBody.title, source: "api" }),
            ),
            // The stranger asking for the dev's task, at the same moment, is not a member of its workspace.
            call(era, TOKENS.stranger, "get_task", { workspace_id: "ws_acme", task_id: devTask }).then(
              (answer) => expect(answer).toEqual({ refused: expect.stringMatching(/^not_found: /) }),
            ),
          );
        }
      await Promise.all(checks);
    }
    h.clock.offsetMs += 60_000;
  });

  it("a run of calls builds no server per call; concurrent calls build at most one each, kept for later", async () => {
    const token = await freshToken(h);
    for (const era of ["modern", "legacy"] as const) {
      const pool = SERVER_POOLS[era];
      await call(era, token, "whoami");
      const warm = pool.built;
      for (let i = 0; i < 20; i++) await call(era, token, "whoami");
      expect(pool.built, `${era}: servers built for 20 calls one after another`).toBe(warm);
      await Promise.all(Array.from({ length: 10 }, () => call(era, token, "whoami")));
      const busiest = pool.built;
      expect(busiest - warm).toBeLessThanOrEqual(10);
      await Promise.all(Array.from({ length: 10 }, () => call(era, token, "whoami")));
      expect(pool.built, `${era}: servers built for 10 concurrent calls after 10 had run`).toBe(busiest);
    }
    h.clock.offsetMs += 60_000;
  });
});
