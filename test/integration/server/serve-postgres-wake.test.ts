// Two `baton serve --database-url` instances on one schema: a long-poll held by instance A wakes when instance B
// commits (LISTEN/NOTIFY; BATON_WAKE_POLL_MS=20000 makes the fallback poll far too slow to pass for it), and a
// rate limit counts the requests of both instances together (reference section 8 "Request rate": 120 POST a
// minute per token and endpoint, 429 with Retry-After past it), as does the MCP budget ("MCP rate": 120 calls a
// minute per token).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { MCP_PATH } from "../../../src/server/surfaces/mcp/wire.js";
import {
  ADMIN_PATHS,
  CreateSandboxResponseSchema,
  HEADERS,
  PATHS,
  QUERY,
  StartOperationAnswerSchema,
  TERMINAL_OPERATION_STATES,
} from "../../../src/transport/wire.js";
import { expectNoCanary } from "../../helpers/canary.js";
import { freshSchema, type TestSchema } from "../../helpers/postgres.js";
import { type PostgresServe, schemaUrl, startPostgresServe } from "../../helpers/serve-postgres.js";
import { API_SEED, CANARIES, TOKENS } from "../api/harness.js";

const FALLBACK_POLL_MS = 20_000;
const ACTIVATION_DELAY_MS = 3_000;

let dir: string;
let schema: TestSchema;
let a: PostgresServe;
let b: PostgresServe;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "serve-postgres-wake-"));
  schema = await freshSchema();
  const start = (name: string, seed?: string) =>
    startPostgresServe({
      databaseUrl: schemaUrl(schema.schema),
      secretKeyFile: join(dir, "key"),
      workDir: join(dir, name),
      ...(seed ? { seed } : {}),
      // The activation stays `running` for 3 s on whichever instance runs it, so a long-poll can wait across
      // its commit.
      env: {
        BATON_WAKE_POLL_MS: String(FALLBACK_POLL_MS),
        BATON_SERVE_TEST_ACTIVATION_DELAY_MS: String(ACTIVATION_DELAY_MS),
      },
    });
  a = await start("a", API_SEED);
  b = await start("b");
});

afterAll(async () => {
  for (const serve of [a, b]) await serve?.stop();
  await schema?.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("two instances of baton serve --database-url on one schema", () => {
  it("an operation's long-poll on instance A wakes when instance B commits, long before A's fallback poll", async () => {
    const made = await b.admin(ADMIN_PATHS.sandboxes, { workspaceId: "ws_acme", engagementId: "eng_wake" });
    expect(made.status, b.output()).toBe(201);
    const sandbox = CreateSandboxResponseSchema.parse(await made.json());
    const headers = {
      [HEADERS.authorization]: `Bearer ${sandbox.turnToken}`,
      [HEADERS.sandboxLease]: sandbox.lease,
    };
    const started = await fetch(new URL(PATHS.operations, b.opsUrl), {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", [HEADERS.idempotencyKey]: "wake-1" },
      body: JSON.stringify({ kind: "env.activate", repository: "acme/api" }),
    });
    expect(started.status, b.output()).toBe(202);
    const operation = StartOperationAnswerSchema.parse(await started.json());
    // B's worker runs it (B took the request); A only ever reads it.
    const read = async (waitMs: number) => {
      const url = new URL(PATHS.operation(operation.id), a.opsUrl);
      url.searchParams.set(QUERY.waitMs, String(waitMs));
      const began = performance.now();
      const answer = await fetch(url, { headers });
      expect(answer.status, a.output()).toBe(200);
      const body = (await answer.json()) as { state: string };
      return { state: body.state, tookMs: performance.now() - began };
    };
    let state = (await read(0)).state;
    const waits: { from: string; to: string; tookMs: number }[] = [];
    while (!TERMINAL_OPERATION_STATES.has(state as never)) {
      const next = await read(25_000);
      waits.push({ from: state, to: next.state, tookMs: next.tookMs });
      state = next.state;
    }
    expect(state, b.output()).toBe("succeeded");
    // Each long-poll ended on a change of state, not on its time running out, and well within half the
    // fallback poll: only B's notification can have woken it that soon.
    for (const wait of waits) {
      expect(wait.to, JSON.stringify(waits)).not.toBe(wait.from);
      expect(wait.tookMs, JSON.stringify(waits)).toBeLessThan(FALLBACK_POLL_MS / 2);
    }
    expect(waits.map((wait) => wait.to)).toContain("succeeded");
  });

  it("a limit of 120 POSTs a minute per token and endpoint admits exactly 120 of 130 spread over both instances", async () => {
    const answers = await Promise.all(
      Array.from({ length: 130 }, (_, i) =>
        fetch(new URL(API_PATHS.stop("ws_acme", `task_missing_${i}`), i % 2 === 0 ? a.url : b.url), {
          method: "POST",
          headers: { authorization: `Bearer ${TOKENS.owner}` },
        }).then(async (response) => ({
          status: response.status,
          retryAfter: response.headers.get(HEADERS.retryAfter),
          body: await response.text(),
        })),
      ),
    );
    const refused = answers.filter((answer) => answer.status === 429);
    expect(answers.length - refused.length, JSON.stringify(answers.slice(0, 2))).toBe(120);
    expect(refused).toHaveLength(10);
    for (const answer of refused) {
      expect(answer.body).toContain("over the rate limit of 120 POST requests a minute");
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(60);
    }
  });

  it("the MCP budget of 120 calls a minute per token admits exactly 120 of 130 calls spread over both instances", async () => {
    const answers = await Promise.all(
      Array.from({ length: 130 }, (_, i) =>
        fetch(new URL(MCP_PATH, i % 2 === 0 ? a.url : b.url), {
          method: "POST",
          headers: {
            authorization: `Bearer ${TOKENS.dev}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping" }),
        }).then(async (response) => ({
          status: response.status,
          retryAfter: response.headers.get(HEADERS.retryAfter),
          body: await response.text(),
        })),
      ),
    );
    const refused = answers.filter((answer) => answer.status === 429);
    expect(answers.length - refused.length, JSON.stringify(answers.slice(0, 2))).toBe(120);
    expect(refused).toHaveLength(10);
    for (const answer of refused) {
      expect(answer.body).toContain("over the MCP budget of 120 calls a minute for this token");
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
    }
  });

  it("both stop on SIGTERM with exit 0, and no secret value reached their output", async () => {
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);
    expectNoCanary([a.output(), b.output()], CANARIES);
  });
});
