// Outcomes the manual agent cannot produce, through the real binary: a task paused on access (the scripted agent
// of a real `baton serve`, rule "registry" of fixtures/seeds/api.json) exits 2 (DESIGN "Billing and pauses"); and
// rule 6, a reply that is not picked up, against a stand-in service on loopback. The stand-in is a fake because
// the real service hands a follow-up over in the same transaction that saves it: only a hand-over that keeps
// failing leaves a reply waiting, and nothing outside the service can cause that.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killLeftoverServes, type ServeHandle, startServe } from "../../helpers/serve.js";
import { API_SEED, TOKENS } from "../api/harness.js";
import { type ClientUser, OUTPUTS, signIn } from "./client-harness.js";

let serve: ServeHandle;
let owner: ClientUser;
beforeAll(async () => {
  serve = await startServe({ seed: API_SEED });
  owner = await signIn(serve.url, TOKENS.owner);
});
afterAll(async () => {
  for (const token of Object.values(TOKENS))
    expect(OUTPUTS.join("\n"), "a token was printed").not.toContain(token);
  await owner?.remove();
  await serve?.stop();
  await killLeftoverServes();
});

describe("the scripted agent's outcomes", () => {
  it("the agent's reply: printed once, exit 0, and how to reply", async () => {
    const run = await owner.run(["start", "tidy the imports"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe("agent: Done: tidy the imports\n");
    expect(run.stderr).toMatch(/Turn done \(replied\)\. Reply with: baton reply task_\S+ "…"\n$/);
  });

  it('a task paused on access → exit 2 ("paused on access or billing")', async () => {
    const run = await owner.run(["start", "publish to the registry"]);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/The task is paused on access: it resumes with a follow-up/);
  });
});

describe('rule 6: "a reply to a completed, failed or cancelled task that is not picked up within two minutes"', () => {
  let stub: Server;
  let url: string;
  let entriesServed = 0;
  const startKeys: string[] = [];
  beforeAll(async () => {
    // The stand-in: the task stays `completed` with its previous answer; the reply is accepted and never picked up.
    const task = {
      id: "task_done",
      status: "completed",
      source: "api",
      title: "t",
      repo: null,
      pullRequest: null,
      queued: false,
      pausedOn: null,
      createdAt: "2026-11-26T00:00:00.000Z",
      lastActivityAt: "2026-11-26T00:00:00.000Z",
    };
    const previous = {
      id: "e1",
      messageId: null,
      role: "agent",
      kind: "response",
      body: "THE PREVIOUS RESULT",
      createdAt: task.createdAt,
    };
    stub = createServer((req, res) => {
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const after = new URL(req.url ?? "/", "http://x").searchParams.get("after");
      res.setHeader("content-type", "application/json");
      if (req.method === "POST" && path.endsWith("/tasks")) {
        // Saved but never handed over: 503 unavailable naming the saved task, every time.
        startKeys.push(String(req.headers["idempotency-key"]));
        res.setHeader("retry-after", "0");
        res.writeHead(503).end(
          JSON.stringify({
            error: "unavailable",
            reason: "not handed over",
            taskId: "task_done",
            messageId: "m-start",
          }),
        );
      } else if (req.method === "POST" && path.endsWith("/messages")) {
        res.writeHead(202).end(JSON.stringify({ messageId: "m-reply" }));
      } else if (path.endsWith("/messages")) {
        entriesServed++;
        const messages =
          after === null
            ? [previous]
            : after === "e1"
              ? [
                  {
                    ...previous,
                    id: "e2",
                    role: "user",
                    kind: "message",
                    messageId: "m-reply",
                    body: "again",
                  },
                ]
              : [];
        res.writeHead(200).end(JSON.stringify({ messages, next: null }));
      } else if (path.endsWith("/task_done")) res.writeHead(200).end(JSON.stringify(task));
      else res.writeHead(404).end(JSON.stringify({ error: "not_found" }));
    });
    await new Promise<void>((resolve) => stub.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => stub.close(() => resolve())));

  it("says so and exits 3 without reporting the previous turn's result (pickup limit shortened for the test)", async () => {
    const started = Date.now();
    const run = await owner.run(["reply", "-w", "ws_acme", "task_done", "again"], {
      env: { BATON_API_URL: url, BATON_CLIENT_PICKUP_MS: "800" },
    });
    expect(run.exitCode).toBe(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(800);
    expect(run.stdout).toBe("");
    expect(run.stderr).not.toContain("THE PREVIOUS RESULT");
    expect(run.stderr).toMatch(
      /The reply was not picked up within 2 minutes \(the task is completed\); it stays saved\. Check later with: baton show task_done/,
    );
    expect(entriesServed).toBeGreaterThan(2);
  });

  it("a start answered 503 unavailable three times: the same key each try, then the saved task is read, not started again", async () => {
    const run = await owner.run(["start", "--no-wait", "--json", "-w", "ws_acme", "saved but stuck"], {
      env: { BATON_API_URL: url },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(startKeys).toHaveLength(3);
    expect(new Set(startKeys).size).toBe(1);
    expect(run.stderr).toMatch(/Task task_done is saved, but the service could not hand it to the agent yet/);
    expect(JSON.parse(run.stdout)).toMatchObject({ task: { id: "task_done" }, messageId: "m-start" });
  });
});
