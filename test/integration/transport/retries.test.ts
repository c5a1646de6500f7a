// The transport client against a real loopback HTTP server that misbehaves on purpose. A scripted server stands
// in for `baton serve` here because the real service cannot be told to drop a connection after doing the work
// or to answer 503/429; the end-to-end suite covers the real service.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { BatonError, EnvironmentOperationError, ServiceError } from "../../../src/errors.js";
import { createOpsClient, type OpsClient } from "../../../src/transport/index.js";
import { HEADERS, PATHS } from "../../../src/transport/wire.js";

type Step =
  | "ok"
  | "drop-after-work"
  | "drop-before-work"
  | { status: number; body?: unknown; headers?: Record<string, string> };

interface Scripted {
  url: string;
  posts: { key: string | undefined; at: number }[];
  created: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

const open: { server?: Scripted; client?: OpsClient }[] = [];

afterEach(async () => {
  for (const item of open.splice(0)) {
    await item.client?.close();
    await item.server?.close();
  }
});

function operationFor(id: string, repository: string) {
  const now = new Date().toISOString();
  return {
    id,
    kind: "env.activate",
    state: "pending",
    repository,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
    result: null,
    error: null,
  };
}

/** A server answering POST /ops/v1/operations by the script, one step per request; it creates an operation
 * once per idempotency key, the way the real service does. */
async function startScripted(steps: Step[]): Promise<Scripted> {
  const posts: Scripted["posts"] = [];
  const created = new Map<string, Record<string, unknown>>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const key = req.headers[HEADERS.idempotencyKey] as string | undefined;
      posts.push({ key, at: Date.now() });
      const step = steps.shift() ?? "ok";
      if (step === "drop-before-work") return void req.socket.destroy();
      if (typeof step === "object") {
        res.writeHead(step.status, { "content-type": "application/json", ...step.headers });
        return void res.end(JSON.stringify(step.body ?? { error: "internal" }));
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { repository: string };
      const existing = key ? created.get(key) : undefined;
      const op = existing ?? operationFor(`op_${created.size + 1}`, body.repository);
      if (key && !existing) created.set(key, op);
      // The work is done; losing the answer now is the case a retry must not repeat.
      if (step === "drop-after-work") return void req.socket.destroy();
      res.writeHead(existing ? 200 : 201, { "content-type": "application/json" });
      res.end(JSON.stringify(op));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const scripted: Scripted = {
    url: `http://127.0.0.1:${port}`,
    posts,
    created,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return scripted;
}

async function setup(steps: Step[], policy = {}) {
  const server = await startScripted(steps);
  const client = createOpsClient(
    { baseUrl: server.url, turnToken: "turn-token-canary", sandboxLease: "lease-canary" },
    { policy: { minBackoffMs: 10, ...policy } },
  );
  open.push({ server, client });
  return { server, client };
}

async function failureOf(promise: Promise<unknown>): Promise<BatonError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(BatonError);
  return error as BatonError;
}

describe("retries keep one idempotency key, so a retry never starts a second operation", () => {
  it("a connection dropped after the work was done is retried and creates exactly one operation", async () => {
    const { server, client } = await setup(["drop-after-work", "ok"]);
    const { operation: op } = await client.startActivation("acme/api");
    expect(server.posts).toHaveLength(2);
    expect(new Set(server.posts.map((p) => p.key)).size).toBe(1);
    expect(server.created.size).toBe(1);
    expect(op.id).toBe("op_1");
  });

  it("a connection dropped before any work is retried", async () => {
    const { server, client } = await setup(["drop-before-work", "drop-before-work", "ok"]);
    const { operation: op } = await client.startActivation("acme/api");
    expect(server.posts).toHaveLength(3);
    expect(server.created.size).toBe(1);
    expect(op.repository).toBe("acme/api");
  });

  it("503 is retried with the same key and creates one operation", async () => {
    const { server, client } = await setup([{ status: 503, body: { error: "unavailable" } }, "ok"]);
    await client.startActivation("acme/api");
    expect(server.posts.map((p) => p.key)).toEqual([server.posts[0]?.key, server.posts[0]?.key]);
    expect(server.created.size).toBe(1);
  });

  it("429 with Retry-After waits at least that long before the retry", async () => {
    const { server, client } = await setup([
      { status: 429, body: { error: "bad_request" }, headers: { [HEADERS.retryAfter]: "1" } },
      "ok",
    ]);
    await client.startActivation("acme/api");
    expect(server.posts).toHaveLength(2);
    const [first, second] = server.posts;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
    expect(server.created.size).toBe(1);
  });

  it("a Retry-After beyond the ceiling ends the retries with a message saying when to come back", async () => {
    const { server, client } = await setup([
      { status: 429, body: { error: "bad_request" }, headers: { [HEADERS.retryAfter]: "3600" } },
    ]);
    const error = await failureOf(client.startActivation("acme/api"));
    expect(error.code).toBe("service_error");
    expect(error.message).toContain("3600 s");
    expect(server.posts).toHaveLength(1);
  });

  it("server errors are tried three times in all, then reported as service_error", async () => {
    const fail = { status: 500, body: { error: "internal" } };
    const { server, client } = await setup([fail, fail, fail, fail]);
    const error = await failureOf(client.startActivation("acme/api"));
    expect(error.code).toBe("service_error");
    expect(server.posts).toHaveLength(3);
  });
});

describe("other 4xx answers are final and typed, and say what to do", () => {
  it.each([
    [400, "invalid_request", "invalid_input", ServiceError, "because"],
    [401, "invalid_token", "unauthorised", ServiceError, "because"],
    [404, "not_found", "not_found", ServiceError, "the workspace has no repository acme/api"],
    [409, "idempotency_conflict", "conflict", ServiceError, "because"],
    [403, "rollout_disabled", "rollout_disabled", EnvironmentOperationError, "set the project up by hand"],
    [403, "forbidden", "rollout_disabled", EnvironmentOperationError, "because"],
  ] as const)("%i %s is not retried and becomes %s", async (status, wire, code, type, says) => {
    const { server, client } = await setup([{ status, body: { error: wire, reason: "because" } }]);
    const error = await failureOf(client.startActivation("acme/api"));
    expect(error).toBeInstanceOf(type);
    expect(error.code).toBe(code);
    expect(error.message).toContain(says);
    expect(server.posts).toHaveLength(1);
    // Neither credential ever appears in an error.
    expect(error.message).not.toMatch(/canary/);
  });
});

describe("network failures", () => {
  it("an unreachable service is a network error naming BATON_OPS_URL", async () => {
    const server = await startScripted([]);
    const url = server.url;
    await server.close();
    const client = createOpsClient(
      { baseUrl: url, turnToken: "turn-token-canary", sandboxLease: "lease-canary" },
      { policy: { minBackoffMs: 10 } },
    );
    open.push({ client });
    const error = await failureOf(client.getOperation("op_1"));
    expect(error.code).toBe("network");
    expect(error.message).toContain("BATON_OPS_URL");
    expect(error.message).toContain(url);
  });

  it("sends the bearer token and the lease on reads, and the path from wire.ts", async () => {
    let seen: IncomingMessage | undefined;
    const server = createServer((req, res) => {
      seen = req;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(operationFor("op 1", "acme/api")));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const client = createOpsClient({
      baseUrl: `http://127.0.0.1:${port}`,
      turnToken: "t0k",
      sandboxLease: "l3ase",
    });
    try {
      await client.getOperation("op 1", { waitMs: 99_999 });
      expect(seen?.headers[HEADERS.authorization]).toBe("Bearer t0k");
      expect(seen?.headers[HEADERS.sandboxLease]).toBe("l3ase");
      expect(seen?.url).toBe(`${PATHS.operation("op 1")}?waitMs=25000`);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
