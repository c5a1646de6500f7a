// `baton serve --database-url`: the real binary on PostgreSQL (a schema of this suite's own, named in the URL's
// search_path), driven as a sandbox and a member drive it: an activation through /ops/v1 (`baton env activate`
// in a sandbox HOME) and a task through /v1 followed to the scripted agent's reply. Then two instances on one
// schema, requests alternating between them.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActivationJsonSchema } from "../../../src/activation/index.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { ADMIN_PATHS, CreateSandboxResponseSchema } from "../../../src/transport/wire.js";
import { expectNoCanary } from "../../helpers/canary.js";
import { runBaton } from "../../helpers/cli.js";
import { freshSchema, type TestSchema } from "../../helpers/postgres.js";
import { makeSandboxHome, type SandboxHome, type ServeHandle, startServe } from "../../helpers/serve.js";
import { schemaUrl } from "../../helpers/serve-place.js";
import { API_SEED, CANARIES, TOKENS, until } from "../api/harness.js";

let dir: string;
const schemas: TestSchema[] = [];
const serves: ServeHandle[] = [];

async function instance(schema: TestSchema, name: string, seed?: string): Promise<ServeHandle> {
  const serve = await startServe({
    databaseUrl: schemaUrl(schema.schema),
    secretKeyFile: join(dir, `${schema.schema}.key`),
    workDir: join(dir, name),
    env: { BATON_LOG_LEVEL: "debug" },
    ...(seed ? { seed } : {}),
  });
  serves.push(serve);
  return serve;
}

const LOAD_USERS = Array.from({ length: 20 }, (_, i) => `load${i}@acme.test`);
const loadToken = (i: number) => `btn_load-user-${String(i).padStart(2, "0")}-000000000000`;

async function call(
  serve: ServeHandle,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
  token: string = TOKENS.owner,
) {
  const response = await fetch(`${serve.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(key ? { "idempotency-key": key } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: JSON answers; each test checks the fields it needs
  const answer = (await response.json().catch(() => ({}))) as Record<string, any>;
  return { status: response.status, body: answer };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "serve-postgres-"));
});
afterAll(async () => {
  for (const serve of serves) await serve.stop();
  for (const schema of schemas) await schema.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("baton serve --database-url, one instance", () => {
  let serve: ServeHandle;
  let home: SandboxHome;
  beforeAll(async () => {
    const schema = await freshSchema();
    schemas.push(schema);
    serve = await instance(schema, "one", API_SEED);
    home = await makeSandboxHome({ "acme/api": "acme-api" });
  });
  afterAll(() => home?.remove());

  it("activates a repository through /ops/v1 from a sandbox", async () => {
    const made = await serve.admin(ADMIN_PATHS.sandboxes, { workspaceId: "ws_acme", engagementId: "eng_pg" });
    expect(made.status, serve.output()).toBe(201);
    const sandbox = CreateSandboxResponseSchema.parse(await made.json());
    const run = await runBaton(["env", "activate", "acme/api", "--json"], {
      env: home.env({
        sandboxId: sandbox.sandboxId,
        engagementId: sandbox.engagementId,
        env: { ...sandbox.env },
      }),
    });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}\n${serve.output()}`).toBe(0);
    const activation = ActivationJsonSchema.parse(JSON.parse(run.stdout));
    expect(activation.state).toBe("succeeded");
    expect(activation.result?.variables.map((v) => `${v.repository} ${v.name}`)).toContain(
      "acme/api DB_PASSWORD",
    );
  });

  it("starts a task through /v1 and follows it to the scripted agent's reply", async () => {
    const started = await call(serve, "POST", API_PATHS.tasks("ws_acme"), { prompt: "tidy the README" });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.task.id as string;
    const messages = await until(async () => {
      const page = await call(serve, "GET", API_PATHS.messages("ws_acme", id));
      return page.body.messages?.length >= 2 ? page.body.messages : undefined;
    }, "the reply");
    expect(messages[1]).toMatchObject({ role: "agent", kind: "response", body: "Done: tidy the README" });
  });

  it("stops on SIGTERM with exit 0, and no secret value reached its output", async () => {
    expect(await serve.stop()).toBe(0);
    expectNoCanary([serve.output()], CANARIES);
  });
});

describe("two instances of baton serve --database-url on one schema", () => {
  let a: ServeHandle;
  let b: ServeHandle;
  beforeAll(async () => {
    const schema = await freshSchema();
    schemas.push(schema);
    // The API seed plus a roomy workspace of 20 members, for the per-person limit.
    const seed = JSON.parse(await readFile(API_SEED, "utf8"));
    seed.workspaces.push({
      id: "ws_load",
      name: "Load",
      plan: { concurrency: 200, queueSize: 200 },
      members: LOAD_USERS.map((email, i) => ({ email, role: "member", token: loadToken(i) })),
      repositories: [{ repository: "load/app" }],
    });
    await writeFile(join(dir, "seed.json"), JSON.stringify(seed));
    // Both start together: the migration runs once between them.
    [a, b] = await Promise.all([instance(schema, "a", join(dir, "seed.json")), instance(schema, "b")]);
  });

  it("a task started on one instance is read on the other", async () => {
    const started = await call(a, "POST", API_PATHS.tasks("ws_acme"), { prompt: "tidy the docs" });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const id = started.body.task.id as string;
    const messages = await until(async () => {
      const page = await call(b, "GET", API_PATHS.messages("ws_acme", id));
      return page.body.messages?.length >= 2 ? page.body.messages : undefined;
    }, "the reply, read on the other instance");
    expect(messages[1]).toMatchObject({ role: "agent", body: "Done: tidy the docs" });
  });

  it("50 simultaneous starts with one Idempotency-Key, alternating between the instances, make one task", async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call(i % 2 === 0 ? a : b, "POST", API_PATHS.tasks("ws_acme"), { prompt: "slow one" }, "pg-one-key"),
      ),
    );
    const statuses = answers.map((answer) => answer.status);
    const failures = [a, b].flatMap((serve) =>
      serve
        .output()
        .split("\n")
        .filter((line) => line.includes('"level":50')),
    );
    expect(statuses, failures.slice(0, 3).join("\n")).toEqual(Array(50).fill(202));
    expect(new Set(answers.map((answer) => answer.body.task.id)).size).toBe(1);
    const list = await call(b, "GET", `${API_PATHS.tasks("ws_acme")}?limit=100`);
    expect(list.body.tasks.filter((task: { title: string }) => task.title === "slow one")).toHaveLength(1);
  });

  it("20 people × 6 simultaneous starts, alternating between the instances: exactly 5 accepted each (the per-person limit)", async () => {
    const answers = await Promise.all(
      LOAD_USERS.flatMap((_, u) =>
        Array.from({ length: 6 }, (_, i) =>
          call(
            i % 2 === 0 ? a : b,
            "POST",
            API_PATHS.tasks("ws_load"),
            { prompt: `slow ${u}.${i}` },
            undefined,
            loadToken(u),
          ).then((answer) => ({ u, status: answer.status })),
        ),
      ),
    );
    const accepted = LOAD_USERS.map((_, u) => answers.filter((x) => x.u === u && x.status === 202).length);
    expect(accepted).toEqual(Array(20).fill(5));
    expect(answers.filter((x) => x.status !== 202).map((x) => x.status)).toEqual(Array(20).fill(429));
  });
});
