// The API client's retries (reference rule 4) over a real socket: "every mutating request carries an idempotency
// key; the client tries up to three times on a dropped connection or server error". The service here is a small
// node:http server scripted per test, because a real `baton serve` cannot be told to drop a connection or fail
// on cue; what a real service does with a repeated key is tested in the follow slice's start tests.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createApiClient } from "../../../src/client/api-client.js";

type Step = (req: IncomingMessage, res: ServerResponse) => void;
interface Seen {
  method: string;
  url: string;
  key: string | undefined;
  auth: string | undefined;
  body: string;
}

let server: Server | undefined;
afterEach(async () => {
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

const TASK = {
  id: "task_1",
  status: "pending",
  source: "api",
  title: "t",
  repo: null,
  pullRequest: null,
  queued: false,
  pausedOn: null,
  createdAt: "2026-11-26T00:00:00.000Z",
  lastActivityAt: "2026-11-26T00:00:00.000Z",
  url: "https://x/task_1",
};

/** Answers request n with steps[n] (the last step repeats); records every request. */
async function scripted(steps: Step[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        url: req.url ?? "",
        key: req.headers["idempotency-key"] as string | undefined,
        auth: req.headers.authorization,
        body,
      });
      steps[Math.min(seen.length - 1, steps.length - 1)]!(req, res);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, seen };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };
/** The service read and saved the request, then the connection dropped before any answer. */
const drop: Step = (req) => req.socket.destroy();

const client = (url: string) =>
  createApiClient({ apiUrl: url, token: "btn_canary-retry-000000", policy: { minBackoffMs: 10 } });

describe("retries: one idempotency key per invocation, up to three tries", () => {
  it("a start whose connection drops after the service saved it is retried with the same key", async () => {
    const { url, seen } = await scripted([drop, json(202, { task: TASK, messageId: "key-1" })]);
    const api = client(url);
    const started = await api.startTask("ws_a", { prompt: "fix it" }, "key-1");
    api.close();
    expect(started.task.id).toBe("task_1");
    expect(seen.map((s) => s.key)).toEqual(["key-1", "key-1"]);
    expect(seen.map((s) => s.body)).toEqual([
      JSON.stringify({ prompt: "fix it" }),
      JSON.stringify({ prompt: "fix it" }),
    ]);
    expect(seen.every((s) => s.auth === "Bearer btn_canary-retry-000000")).toBe(true);
  });

  it("a message send answered 503 is retried with the same key", async () => {
    const { url, seen } = await scripted([
      json(503, { error: "unavailable", messageId: "key-2" }),
      json(202, { messageId: "key-2" }),
    ]);
    const api = client(url);
    expect(await api.sendMessage("ws_a", "task_1", "and the docs", "key-2")).toEqual({ messageId: "key-2" });
    api.close();
    expect(seen.map((s) => [s.method, s.url, s.key])).toEqual([
      ["POST", "/v1/workspaces/ws_a/tasks/task_1/messages", "key-2"],
      ["POST", "/v1/workspaces/ws_a/tasks/task_1/messages", "key-2"],
    ]);
  });

  it("three 500s: three tries, then an error carrying the service's reason", async () => {
    const { url, seen } = await scripted([json(500, { error: "internal", reason: "the store is down" })]);
    const api = client(url);
    await expect(api.startTask("ws_a", { prompt: "x" }, "key-3")).rejects.toThrow("the store is down");
    api.close();
    expect(seen).toHaveLength(3);
  });

  it("a 429 with Retry-After waits that long before the next try", async () => {
    const { url, seen } = await scripted([
      json(429, { error: "bad_request", reason: "slow down" }, { "retry-after": "1" }),
      json(200, { tasks: [], nextCursor: null }),
    ]);
    const api = client(url);
    const began = Date.now();
    expect(await api.listTasks("ws_a", { limit: 20 })).toEqual({ tasks: [], nextCursor: null });
    api.close();
    expect(Date.now() - began).toBeGreaterThanOrEqual(950);
    expect(seen.map((s) => s.url)).toEqual([
      "/v1/workspaces/ws_a/tasks?limit=20",
      "/v1/workspaces/ws_a/tasks?limit=20",
    ]);
  });

  it.each([
    [400, "invalid_prompt"],
    [401, "invalid_token"],
    [404, "not_found"],
    [409, "idempotency_conflict"],
  ])("a %d %s is not retried", async (status, error) => {
    const { url, seen } = await scripted([json(status, { error, reason: "because" })]);
    const api = client(url);
    await expect(api.startTask("ws_a", { prompt: "x" }, "key-4")).rejects.toThrow(`${status} ${error}`);
    api.close();
    expect(seen).toHaveLength(1);
  });

  it("an answer that is not the reference's shape is an error, not a guess", async () => {
    const { url } = await scripted([json(200, { user: { id: 1 } })]);
    const api = client(url);
    await expect(api.me()).rejects.toThrow("a body this client cannot read");
    api.close();
  });

  it("logout's DELETE /v1/me/token takes 204 with no body", async () => {
    const { url, seen } = await scripted([
      (_req, res) => {
        res.writeHead(204);
        res.end();
      },
    ]);
    const api = client(url);
    await api.revokeToken();
    api.close();
    expect(seen.map((s) => [s.method, s.url])).toEqual([["DELETE", "/v1/me/token"]]);
  });
});
