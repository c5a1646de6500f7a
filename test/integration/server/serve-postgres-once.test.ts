// Issue 26, "the e-mail outbox and webhook deliveries are processed once", through two real `baton serve
// --database-url` processes on one test schema. The code host is test/helpers/fake-codehost (GitHub's API and
// git on loopback: no code host is reachable from here); e-mail goes to the real loopback SMTP server.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quoteIdentifier } from "../../../src/server/store/postgres-store.js";
import { signBody } from "../../../src/server/surfaces/webhooks/verify.js";
import { ADMIN_PATHS, CreateSandboxResponseSchema } from "../../../src/transport/wire.js";
import { expectNoCanary } from "../../helpers/canary.js";
import { runBaton } from "../../helpers/cli.js";
import { type FakeCodehost, startFakeCodehost } from "../../helpers/fake-codehost/index.js";
import { pollUntil } from "../../helpers/poll.js";
import { admin, freshSchema, type TestSchema } from "../../helpers/postgres.js";
import { FIXTURES } from "../../helpers/serve.js";
import { type PostgresServe, schemaUrl, startPostgresServe } from "../../helpers/serve-postgres.js";
import { startSmtpServer, type TestSmtpServer } from "../../helpers/smtp.js";
import { SEED as CAPABILITY_SEED } from "../capability/harness.js";

const WEBHOOK_SECRET = "canary-once-webhook-secret-5c2e9a17-never-print";
const INSTALLATION = 91;
const REPO = "acme/api";
const INFO = { BATON_LOG_LEVEL: "info" };
const LEASE_MS = 2_000;

let dir: string;
const schemas: TestSchema[] = [];
const serves: PostgresServe[] = [];

async function instances(
  schema: TestSchema,
  names: string[],
  options: { seed?: string; args?: string[]; env?: Record<string, string> },
) {
  const start = (name: string, seed?: string) =>
    startPostgresServe({
      databaseUrl: schemaUrl(schema.schema),
      secretKeyFile: join(dir, `${schema.schema}.key`),
      workDir: join(dir, name),
      env: { ...INFO, ...options.env, BATON_MACHINE: name },
      ...(options.args ? { args: options.args } : {}),
      ...(seed ? { seed } : {}),
    });
  // The first seeds (a seed applied by two instances at once collides on its inserts); the rest start together.
  const first = await start(names[0]!, options.seed);
  serves.push(first);
  const rest = await Promise.all(names.slice(1).map((name) => start(name)));
  serves.push(...rest);
  return [first, ...rest];
}

const rowsOf = async (schema: TestSchema, sql: string) =>
  (await admin(sql.replaceAll("$schema", quoteIdentifier(schema.schema)))).rows;

/** The service's JSON log lines with this message, across instances. */
const logLines = (serve: PostgresServe, msg: string) =>
  serve
    .output()
    .split("\n")
    .filter((line) => line.includes(`"msg":"${msg}"`))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "serve-postgres-once-"));
});
afterAll(async () => {
  for (const serve of serves) await serve.stop();
  for (const schema of schemas) await schema.drop();
  await rm(dir, { recursive: true, force: true });
});

describe("webhook deliveries with two instances on one database", () => {
  let fake: FakeCodehost;
  let schema: TestSchema;
  let a: PostgresServe;
  let b: PostgresServe;
  let issue: { id: number; number: number; title: string; body: string };

  beforeAll(async () => {
    fake = await startFakeCodehost();
    await fake.addRepo(REPO);
    await fake.commitFile(REPO, "README.md", "# acme/api\n");
    fake.addInstallation(INSTALLATION, "acme", [REPO]);
    issue = fake.addIssue(REPO, { title: "Fix the login page", body: "The login button does nothing." });
    const keyFile = join(dir, "app.pem");
    const secretFile = join(dir, "webhook-secret");
    await writeFile(keyFile, fake.settings.privateKeyPem, { mode: 0o600 });
    await writeFile(secretFile, `${WEBHOOK_SECRET}\n`, { mode: 0o600 });
    const clientSecretFile = join(dir, "client-secret");
    await writeFile(clientSecretFile, fake.settings.clientSecret, { mode: 0o600 });
    const seed = join(dir, "codehost-seed.json");
    await writeFile(seed, JSON.stringify(codehostSeed()));
    schema = await freshSchema();
    schemas.push(schema);
    [a, b] = (await instances(schema, ["web-a", "web-b"], {
      seed,
      // A short lease, so the kill -9 test below sees the takeover quickly.
      env: { BATON_SERVE_TEST_QUEUE_LEASE_MS: String(LEASE_MS) },
      args: [
        ...["--codehost-app-id", fake.settings.appId, "--codehost-app-slug", fake.settings.appSlug],
        ...["--codehost-private-key-file", keyFile, "--codehost-webhook-secret-file", secretFile],
        ...["--codehost-api-url", fake.apiUrl, "--codehost-web-url", fake.webUrl],
        ...[
          "--codehost-client-id",
          fake.settings.clientId,
          "--codehost-client-secret-file",
          clientSecretFile,
        ],
      ],
    })) as [PostgresServe, PostgresServe];
  }, 120_000);
  afterAll(() => fake?.close());

  async function deliver(serve: PostgresServe, event: string, id: string, payload: unknown) {
    const raw = JSON.stringify(payload);
    const response = await fetch(`${serve.url}/webhooks/codehost`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": event,
        "x-github-delivery": id,
        "x-hub-signature-256": `sha256=${signBody(WEBHOOK_SECRET, raw)}`,
      },
      body: raw,
    });
    return response.status;
  }

  const labelled = async (about = issue) => {
    const payload = JSON.parse(
      await readFile(join(FIXTURES, "webhooks", "codehost", "issues-labeled.json"), "utf8"),
    ) as Record<string, unknown>;
    return {
      ...payload,
      issue: { ...(payload.issue as object), ...about },
      repository: { ...(payload.repository as object), name: "api", full_name: REPO },
      sender: { login: "olive", id: 501, type: "User" },
      installation: { id: INSTALLATION },
    };
  };

  it("one delivery POSTed to both instances at once does the work once: one 202 and one duplicate, one task, one reply on the issue", async () => {
    const payload = await labelled();
    const statuses = await Promise.all([a, b].map((s) => deliver(s, "issues", "once-labelled", payload)));
    expect(statuses.sort()).toEqual([200, 202]);
    const tasks = await pollUntil(
      () => rowsOf(schema, "SELECT id, status FROM $schema.tasks WHERE source = 'codehost_issue'"),
      (rows) => rows.some((row) => row.status === "pr_open"),
      { timeoutMs: 60_000 },
    );
    expect(tasks).toHaveLength(1);
    const posted = await pollUntil(
      () => rowsOf(schema, "SELECT state FROM $schema.issue_posts"),
      (rows) => rows.length > 0 && rows.every((row) => row.state === "posted"),
      { timeoutMs: 30_000 },
    );
    expect(posted.length).toBeGreaterThan(0);
    const comments = fake.state.repos.get(REPO)!.issues.find((i) => i.number === issue.number)!.comments;
    expect(comments.filter((c) => c.body.includes("<!-- baton:agt_"))).toHaveLength(1);
    expect(
      await rowsOf(schema, "SELECT state, attempts::int AS attempts FROM $schema.webhook_deliveries"),
    ).toEqual([{ state: "done", attempts: 1 }]);
  });

  it("20 deliveries, each POSTed to both instances at once, are each applied exactly once across the two", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `once-ping-${i}`);
    const statuses = await Promise.all(
      ids.flatMap((id) => [a, b].map((s) => deliver(s, "ping", id, { zen: "Keep it logically awesome." }))),
    );
    expect(statuses.filter((s) => s === 202)).toHaveLength(20);
    const done = await pollUntil(
      () =>
        rowsOf(schema, "SELECT delivery_id, attempts FROM $schema.webhook_deliveries WHERE state = 'done'"),
      (rows) => rows.length === 21,
      { timeoutMs: 60_000 },
    );
    expect(done.filter((row) => Number(row.attempts) !== 1)).toEqual([]);
    // Each instance's worker drains the whole queue when woken, so both raced for every delivery; each
    // application logs one line: one line per delivery id across both logs means no delivery ran twice.
    const applied = [a, b].flatMap((s) => logLines(s, "webhook delivery applied")).map((l) => l.delivery);
    expect(applied.filter((id) => String(id).startsWith("once-ping-")).sort()).toEqual([...ids].sort());
  });

  it("kill -9 of the instance applying a delivery: the other takes it over after the lease and applies it once", async () => {
    const second = fake.addIssue(REPO, { title: "Fix the login form", body: "The form loses its input." });
    // The fake's next API answer is held back, so the claimer is mid-apply (its claim renewed) when it is killed.
    // Posted to A, but both instances' workers are woken: whichever claims it is killed, the other takes over.
    fake.stallNext(1, 15_000);
    expect(await deliver(a, "issues", "once-killed", await labelled(second))).toBe(202);
    const row = () =>
      rowsOf(
        schema,
        "SELECT state, attempts::int AS attempts, claimed_by FROM $schema.webhook_deliveries WHERE delivery_id = 'once-killed'",
      );
    const claimed = await pollUntil(row, (rows) => /^web-[ab]\//.test(String(rows[0]?.claimed_by)), {
      timeoutMs: 20_000,
    });
    const [claimer, other] = String(claimed[0]?.claimed_by).startsWith("web-a/") ? [a, b] : [b, a];
    const killedAt = Date.now();
    await claimer.kill9();
    const done = await pollUntil(row, (rows) => rows[0]?.state === "done", { timeoutMs: 30_000 });
    expect(done).toEqual([{ state: "done", attempts: 1, claimed_by: null }]);
    // The claimer is held mid-apply only when its apply makes the API call the fake holds back; with the
    // installation's token already cached it may make none and finish before the kill. Either way the delivery is
    // applied once across the two; when the kill landed mid-apply, the other took it over after the lease. (The
    // takeover itself is pinned down by "a webhook delivery whose claimer died" below.)
    const appliedBy = (serve: PostgresServe) =>
      logLines(serve, "webhook delivery applied").filter((line) => line.delivery === "once-killed");
    // The delivery row (done, one attempt) and the one task below prove it was applied once. The log lines say by
    // whom, but the claimer's own line may be lost with it (killed right after its commit, before its output was
    // read): at most one line across the two, and the other's when it took over.
    const byClaimer = appliedBy(claimer);
    const byOther = appliedBy(other);
    expect(byClaimer.length + byOther.length).toBeLessThanOrEqual(1);
    // Taken over within about two leases of the kill (the lease the claimer last renewed, then the other's look).
    for (const line of byOther) expect(Number(line.time) - killedAt).toBeLessThan(LEASE_MS * 2 + 5_000);
    const tasks = await rowsOf(schema, `SELECT id FROM $schema.tasks WHERE ticket_number = ${second.number}`);
    expect(tasks).toHaveLength(1);
  });

  it("no webhook secret or private key appears in either instance's output", () => {
    expectNoCanary([a.output(), b.output()], [WEBHOOK_SECRET, fake.settings.privateKeyPem]);
  });
});

describe("a webhook delivery whose claimer died", () => {
  it("is taken over by a live instance once the dead claimer's lease has run out, and applied once", async () => {
    const schema = await freshSchema();
    schemas.push(schema);
    const [live] = (await instances(schema, ["lease-live"], {
      env: { BATON_SERVE_TEST_QUEUE_LEASE_MS: String(LEASE_MS) },
    })) as [PostgresServe];
    // The row exactly as an instance leaves it when it is killed mid-apply: queued, claimed by it, its lease
    // running. (Killing a real instance mid-apply would need a delivery whose work can be held open.)
    const leaseUntil = Date.now() + LEASE_MS;
    await rowsOf(
      schema,
      `INSERT INTO $schema.webhook_deliveries (source, delivery_id, event, payload, received_at_ms, next_attempt_at_ms,
         claimed_by, lease_until_ms) VALUES ('codehost', 'dead-claim', 'ping', '{}', ${Date.now()}, 0,
         'gone-machine/000000000000', ${leaseUntil})`,
    );
    const read = () =>
      rowsOf(schema, "SELECT state, attempts::int AS attempts, claimed_by FROM $schema.webhook_deliveries");
    expect(await read()).toMatchObject([{ state: "queued", claimed_by: "gone-machine/000000000000" }]);
    const done = await pollUntil(read, (rows) => rows[0]?.state === "done", { timeoutMs: 20_000 });
    expect(done).toEqual([{ state: "done", attempts: 1, claimed_by: null }]);
    const applied = logLines(live, "webhook delivery applied");
    expect(applied.map((line) => line.delivery)).toEqual(["dead-claim"]);
    expect(Number(applied[0]!.time)).toBeGreaterThanOrEqual(leaseUntil);
  });
});

describe("the e-mail outbox with two instances on one database", () => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(() => smtp?.close());

  it("10 requests' 20 queued e-mails are sent once each when two instances with --smtp-url start together", async () => {
    const schema = await freshSchema();
    schemas.push(schema);
    const seed = join(dir, "capability-seed.json");
    await writeFile(seed, JSON.stringify(CAPABILITY_SEED));
    // Queued by an instance without a relay, so both senders find all 20 waiting and race for each.
    const [quiet] = (await instances(schema, ["mail-quiet"], { seed })) as [PostgresServe];
    const created = CreateSandboxResponseSchema.parse(
      await (
        await quiet.admin(ADMIN_PATHS.sandboxes, { workspaceId: "ws_acme", engagementId: "eng_once_mail" })
      ).json(),
    );
    const requests: string[] = [];
    for (let i = 0; i < 10; i++) {
      const run = await runBaton(
        ["env", "request-capability", "--repo", "acme/api", "--capability", "data_access"].concat([
          "--target",
          `warehouse-${i}.acme.test`,
          "--reason",
          `report ${i} needs read access`,
        ]),
        { env: { ...created.env } },
      );
      expect(run.exitCode, run.stderr).toBe(0);
      requests.push(/request (cr_[0-9a-f]+)/.exec(run.stdout)![1]!);
    }
    await instances(schema, ["mail-a", "mail-b"], { args: ["--smtp-url", smtp.url] });
    const sent = await pollUntil(
      () => rowsOf(schema, "SELECT state FROM $schema.notification_deliveries WHERE state = 'sent'"),
      (rows) => rows.length === 20,
      { timeoutMs: 60_000 },
    );
    expect(sent).toHaveLength(20);
    const received = smtp.received.map((m) => `${requests.find((id) => m.decoded.includes(id))} ${m.to[0]}`);
    const expected = requests.flatMap((id) => [`${id} admin@acme.test`, `${id} owner@acme.test`]);
    expect(received.sort()).toEqual(expected.sort());
  });
});

function codehostSeed() {
  return {
    agent: {
      rules: [
        {
          match: "login",
          reply: "Fixed the login page; the pull request is open.",
          files: { "login.txt": "fixed\n" },
          pullRequest: { branch: "baton/fix-login", title: "Fix the login page" },
        },
      ],
    },
    workspaces: [
      {
        id: "ws_acme",
        name: "Acme",
        members: [
          {
            email: "olive@acme.test",
            role: "owner",
            name: "Olive",
            codehostLogin: "olive",
            token: "btn_once_owner_token_0123456789abcdef",
          },
        ],
        repositories: [{ repository: REPO }],
        codehost: { installation: { id: String(INSTALLATION), account: "acme" } },
      },
    ],
  };
}
