// Issue 36, point 5: "box operations that only the owning instance can do (admin exec, copy-out and removal; manual
// agent answers; a stop's signal to a running agent) reach the instance that owns the box, whichever instance the
// request arrived at". Two real `baton serve --database-url` instances on one schema, each with the namespace
// driver, as two machines (BATON_MACHINE m1 and m2: neither may drive the other's boxes), and every request sent
// through a round-robin over the two, as a load balancer without stickiness would. Each test checks that the
// request it cares about landed on the instance that does not own the box or turn, and that the owner did the work.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quoteIdentifier } from "../../../src/server/store/postgres-store.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { ADMIN_PATHS, CreateSandboxResponseSchema, HEADERS } from "../../../src/transport/wire.js";
import { pollUntil } from "../../helpers/poll.js";
import { admin, freshSchema, type TestSchema } from "../../helpers/postgres.js";
import { type PostgresServe, schemaUrl, startPostgresServe } from "../../helpers/serve-postgres.js";
import { API_SEED, TOKENS } from "../api/harness.js";

/**
 * Long, so the instance running a turn would notice a stop only at its next lease tick (every third of this): the
 * stop test's deadline is far shorter, so only the stop's own signal can meet it.
 */
const LEASE_SECONDS = 300;
const PROMPT_MS = 20_000;

let dir: string;
let schema: TestSchema;
let a: PostgresServe;
let b: PostgresServe;

/** The load balancer: each request goes to the next instance in turn. */
let turn = 0;
function next(): PostgresServe {
  turn += 1;
  return turn % 2 === 1 ? a : b;
}
/** Skips one instance in the rotation so the next request lands on `serve`'s peer, as round-robin sometimes does. */
function nextOther(than: PostgresServe): PostgresServe {
  let serve = next();
  if (serve === than) serve = next();
  return serve;
}

function instanceOf(serve: PostgresServe): string {
  const match = /"instance":"([^"]+)"/.exec(serve.output());
  if (!match) throw new Error(`no instance id logged:\n${serve.output()}`);
  return match[1]!;
}

async function rowOf(
  table: string,
  column: string,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const result = await admin(
    `SELECT * FROM ${quoteIdentifier(schema.schema)}.${quoteIdentifier(table)} WHERE ${quoteIdentifier(column)} = $1`,
    [id],
  );
  return result.rows[0] as Record<string, unknown> | undefined;
}

async function adminCall(serve: PostgresServe, method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, serve.adminUrl), {
    method,
    headers: {
      [HEADERS.adminToken]: serve.adminToken,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return response;
}

/** A box made through the balancer; which instance owns it (the one that made it). */
async function makeBox(engagementId: string): Promise<{ sandboxId: string; owner: PostgresServe }> {
  const owner = next();
  const made = await adminCall(owner, "POST", ADMIN_PATHS.sandboxes, {
    workspaceId: "ws_acme",
    engagementId,
  });
  expect(made.status, owner.output()).toBe(201);
  const { sandboxId } = CreateSandboxResponseSchema.parse(await made.json());
  expect((await rowOf("sandbox_boxes", "sandbox_id", sandboxId))?.owner_instance).toBe(instanceOf(owner));
  return { sandboxId, owner };
}

const exec = (serve: PostgresServe, sandboxId: string, engagementId: string, command: string[]) =>
  adminCall(serve, "POST", ADMIN_PATHS.sandboxExec.replace(":id", sandboxId), {
    workspaceId: "ws_acme",
    engagementId,
    command,
    timeoutSeconds: 60,
  });

async function startInstance(name: string, machine: string, seed?: string): Promise<PostgresServe> {
  return startPostgresServe({
    databaseUrl: schemaUrl(schema.schema),
    secretKeyFile: join(dir, "store.key"),
    workDir: join(dir, name),
    args: ["--sandbox-driver", "namespace", "--agent", "manual", "--lease-seconds", String(LEASE_SECONDS)],
    env: { BATON_LOG_LEVEL: "info", BATON_MACHINE: machine },
    ...(seed ? { seed } : {}),
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "serve-postgres-instances-"));
  schema = await freshSchema();
  a = await startInstance("a", "m1", API_SEED);
  b = await startInstance("b", "m2");
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await schema?.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("box operations reach the instance that owns the box, through a round-robin of two instances", () => {
  it("admin exec: the command runs in the box on its owner, whichever instance the request arrived at", {
    timeout: 120_000,
  }, async () => {
    const { sandboxId, owner } = await makeBox("eng_exec");
    // The owner writes a file in its box; the other instance's exec must read it from that same box.
    const first = await exec(owner, sandboxId, "eng_exec", ["bash", "-c", "echo from-the-owner > ~/mark"]);
    expect(first.status, owner.output()).toBe(200);
    const other = nextOther(owner);
    expect(other).not.toBe(owner);
    const read = await exec(other, sandboxId, "eng_exec", ["bash", "-c", "cat ~/mark; echo err >&2; exit 3"]);
    const body = await read.json();
    expect({ status: read.status, body }, other.output()).toEqual({
      status: 200,
      body: { exitCode: 3, stdout: "from-the-owner\n", stderr: "err\n", timedOut: false },
    });
  });

  it("copy-out: the owner copies the folder out of its box and the archive comes back through the other instance", {
    timeout: 120_000,
  }, async () => {
    const { sandboxId, owner } = await makeBox("eng_copy");
    await exec(owner, sandboxId, "eng_copy", [
      "bash",
      "-c",
      "mkdir -p ~/out/sub && echo hello > ~/out/sub/a.txt",
    ]);
    const other = nextOther(owner);
    const response = await adminCall(other, "POST", ADMIN_PATHS.sandboxCopyOut.replace(":id", sandboxId), {
      workspaceId: "ws_acme",
      engagementId: "eng_copy",
      path: "/home/agent/out",
    });
    expect(response.status, other.output()).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-tar");
    const archive = Buffer.from(await response.arrayBuffer());
    const unpacked = await mkdtemp(join(dir, "unpacked-"));
    const { execFileSync } = await import("node:child_process");
    execFileSync("tar", ["-x", "-C", unpacked], { input: archive });
    expect(await readFile(join(unpacked, "out", "sub", "a.txt"), "utf8")).toBe("hello\n");
    // A path the box does not have is the owner's 404, passed back as it is.
    const missing = await adminCall(
      nextOther(owner),
      "POST",
      ADMIN_PATHS.sandboxCopyOut.replace(":id", sandboxId),
      {
        workspaceId: "ws_acme",
        engagementId: "eng_copy",
        path: "/home/agent/nothing-here",
      },
    );
    expect({ status: missing.status, error: ((await missing.json()) as { error: string }).error }).toEqual({
      status: 404,
      error: "not_found",
    });
  });

  it("removal: the owner removes the box (its own log records it), though the other instance took the request", {
    timeout: 120_000,
  }, async () => {
    const { sandboxId, owner } = await makeBox("eng_remove");
    const other = nextOther(owner);
    const removed = await adminCall(
      other,
      "DELETE",
      `${ADMIN_PATHS.sandbox.replace(":id", sandboxId)}?workspaceId=ws_acme&engagementId=eng_remove`,
    );
    const body = (await removed.json()) as { transition: { to: string } | null };
    expect({ status: removed.status, to: body.transition?.to }, other.output()).toEqual({
      status: 200,
      to: "deleted",
    });
    // The transition is logged by the instance that applied it: the owner, whose driver ran the box.
    const line = (serve: PostgresServe) =>
      serve
        .output()
        .split("\n")
        .some((l) => l.includes(sandboxId) && l.includes('"to":"deleted"'));
    expect({ owner: line(owner), other: line(other) }).toEqual({ owner: true, other: false });
    // The box's folder on the owner's machine is gone (the namespace driver's ref is that folder).
    const ref = String((await rowOf("sandbox_boxes", "sandbox_id", sandboxId))?.box_ref);
    const { existsSync } = await import("node:fs");
    expect(existsSync(ref)).toBe(false);
  });
});

async function api(serve: PostgresServe, method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, serve.url), {
    method,
    headers: {
      authorization: `Bearer ${TOKENS.owner}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: the public API's shapes are checked by its own suites
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
}

/** A task started through the balancer whose manual turn runs (and waits) on the instance that took the start. */
async function startWaitingTask(prompt: string): Promise<{ taskId: string; runner: PostgresServe }> {
  const runner = next();
  const started = await api(runner, "POST", API_PATHS.tasks("ws_acme"), { prompt });
  expect(started.status, runner.output()).toBe(202);
  const taskId = started.body.task.id as string;
  // Running, under the claim of the instance that took the start, with its box made (the turn then waits).
  const turn = await pollUntil(
    async () => {
      const task = await rowOf("tasks", "id", taskId);
      const row = task?.open_turn_id ? await rowOf("task_turns", "id", String(task.open_turn_id)) : undefined;
      const box = await admin(
        `SELECT state FROM ${quoteIdentifier(schema.schema)}.sandbox_boxes WHERE engagement_id = $1`,
        [taskId],
      );
      return { row, box: box.rows[0]?.state };
    },
    (t) => t.row?.state === "running" && t.box === "running",
    { timeoutMs: PROMPT_MS },
  );
  expect(turn.row?.claimed_by, runner.output()).toBe(instanceOf(runner));
  return { taskId, runner };
}

describe("a task's running turn is reached on the instance that runs it", () => {
  it("manual answer: the other instance's admin route ends the turn waiting on its owner, and answers once it is recorded", {
    timeout: 120_000,
  }, async () => {
    const { taskId, runner } = await startWaitingTask("answer me from the other instance");
    const other = nextOther(runner);
    const answered = await adminCall(other, "POST", ADMIN_PATHS.taskAnswer.replace(":id", taskId), {
      kind: "reply",
      text: "Answered through the other instance.",
    });
    const body = await answered.json();
    expect({ status: answered.status, body }, `${other.output()}\n${runner.output()}`).toEqual({
      status: 200,
      body: { taskId, workspaceId: "ws_acme", kind: "reply", status: "replied" },
    });
    // Recorded before the answer came back: the conversation read next (on either instance) shows the reply.
    const messages = (await api(next(), "GET", API_PATHS.messages("ws_acme", taskId))).body.messages;
    expect(messages.at(-1)).toMatchObject({ role: "agent", body: "Answered through the other instance." });
  });

  it("stop: the signal reaches the instance running the turn at once, which ends its agent and archives its box", {
    timeout: 120_000,
  }, async () => {
    const { taskId, runner } = await startWaitingTask("stop me from the other instance");
    const other = nextOther(runner);
    const stopped = await api(other, "POST", API_PATHS.stop("ws_acme", taskId));
    expect(stopped.status, other.output()).toBe(202);
    // The runner aborts the turn and settles the cancelled task's box: archived. Without the signal it would only
    // notice at its next lease tick, LEASE_SECONDS / 3 = 100 s away, far past this wait.
    // A task's box is its engagement's: the engagement id is the task's.
    const box = await pollUntil(
      async () => (await rowOf("sandbox_boxes", "engagement_id", taskId))?.state,
      (state) => state === "archived",
      { timeoutMs: PROMPT_MS },
    );
    expect(box, runner.output()).toBe("archived");
  });
});

describe("the failed-credential throttle is shared", () => {
  it("20 failed credentials from one address spread over both instances block it: the 21st, on either, is 429 with Retry-After", {
    timeout: 60_000,
  }, async () => {
    const attempt = async (serve: PostgresServe) => {
      const response = await fetch(new URL(API_PATHS.tasks("ws_acme"), serve.url), {
        headers: { authorization: "Bearer btn_not-a-real-token-00000000000000000000" },
      });
      await response.body?.cancel();
      return { status: response.status, retryAfter: response.headers.get("retry-after") };
    };
    const statuses: number[] = [];
    const landed = new Set<PostgresServe>();
    for (let i = 0; i < 20; i++) {
      const serve = next();
      landed.add(serve);
      statuses.push((await attempt(serve)).status);
    }
    // Ten on each: counted per instance, neither would have blocked the address.
    expect({ statuses: new Set(statuses), instances: landed.size }).toEqual({
      statuses: new Set([401]),
      instances: 2,
    });
    for (const serve of [next(), next()]) {
      const blocked = await attempt(serve);
      expect(blocked.status, serve.output()).toBe(429);
      expect(Number(blocked.retryAfter)).toBeGreaterThan(0);
    }
    // A valid credential from the same address is still served on both (the block is on failing, not the address).
    for (const serve of [a, b])
      expect((await api(serve, "GET", API_PATHS.tasks("ws_acme"))).status, serve.output()).toBe(200);
  });
});

describe("an owner that is gone", () => {
  it("a box whose instance was killed: the other instance answers 503 owner_unreachable within the pickup time, naming it", {
    timeout: 120_000,
  }, async () => {
    const { sandboxId, owner } = await makeBox("eng_gone");
    const other = owner === a ? b : a;
    const id = instanceOf(owner);
    expect(await owner.kill9()).toBe("SIGKILL");
    const started = Date.now();
    const response = await exec(other, sandboxId, "eng_gone", ["true"]);
    const body = (await response.json()) as { error: string; reason: string };
    expect({ status: response.status, error: body.error }).toEqual({
      status: 503,
      error: "owner_unreachable",
    });
    expect(body.reason).toContain(id);
    // Bounded by the pickup time (10 s), not by the command's 60 s limit.
    expect(Date.now() - started).toBeLessThan(30_000);
  });
});
