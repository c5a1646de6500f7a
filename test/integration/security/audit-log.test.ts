// The audit trail of a real `baton serve` with BATON_LOG_LEVEL unset (issue 21 item 8): info is the default, and
// each security event is one JSON line with its event name, request id, actor and workspace where they exist.
// Canary secrets and tokens (seeded, written, minted, a sandbox's turn token and lease) are planted, every event
// is driven, and every line the service writes is read: each event is there with its fields, and no canary is
// anywhere in its output. Runs the Docker driver, so the sandbox lifecycle (created, stopped, archived, lost) is
// real boxes.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_ACTOR, AUDIT_EVENTS, SERVICE_ACTOR } from "../../../src/audit/events.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { ADMIN_PATHS, HEADERS, PATHS } from "../../../src/transport/wire.js";
import { pollUntil } from "../../helpers/poll.js";
import {
  createSandbox,
  killLeftoverServes,
  listenerUrlFor,
  type ServeHandle,
  startServe,
} from "../../helpers/serve.js";
import { API_SEED, CANARIES, TOKENS } from "../api/harness.js";

const PROXY_TOKEN = "4b7d2e19c0a85f3e6d21b9047ae8c5d3f61e02a97b4c8d53e1f0a6b29c7d84e5";
const WRITTEN_SECRET = "canary-written-secret-8c3a5f70-never-print";
const ROTATED_SECRET = "canary-rotated-secret-1d9e6b42-never-print";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let serve: ServeHandle;
let dir = "";
const canaries = [...CANARIES, PROXY_TOKEN, WRITTEN_SECRET, ROTATED_SECRET];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "audit-log-"));
  const seed = JSON.parse(await readFile(API_SEED, "utf8"));
  // Capability requests need the repository-environments rollout.
  seed.workspaces[0].rollout = { repositoryEnvironments: true };
  await writeFile(join(dir, "seed.json"), JSON.stringify(seed));
  serve = await startServe({
    seed: join(dir, "seed.json"),
    env: { BATON_PROXY_TOKEN: PROXY_TOKEN },
    args: ["--sandbox-driver", "docker"],
  });
  canaries.push(serve.adminToken);
}, 120_000);
afterAll(async () => {
  await serve?.stop();
  await killLeftoverServes();
  await rm(dir, { recursive: true, force: true });
});

const call = (
  path: string,
  init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> },
) =>
  fetch(listenerUrlFor(serve, path), {
    method: init.method ?? "GET",
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

type Line = Record<string, unknown> & { event?: string };
function lines(): Line[] {
  return serve
    .stderr()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Line);
}
const events = (name: string) => lines().filter((line) => line.event === name);

describe("baton serve's audit log with BATON_LOG_LEVEL unset", () => {
  it("writes one line per security event with its fields, and never a token or secret value", async () => {
    // Admin call + personal token created, then revoked by its holder.
    const created = await serve.admin(ADMIN_PATHS.tokens, {
      email: "dev@acme.test",
      name: "ci",
      lifetimeDays: 30,
    });
    expect(created.status).toBe(201);
    const token = (await created.json()) as { id: string; token: string };
    canaries.push(token.token);
    expect((await call(API_PATHS.meToken, { method: "DELETE", token: token.token })).status).toBe(204);

    // A failed credential.
    expect((await call(API_PATHS.me, { token: "btn_wrong-token-00000000000000000" })).status).toBe(401);

    // A secret written, then rotated (name only in the log).
    const secretPath = "/workspaces/ws_acme/repos/repo_api/secrets/DEPLOY_KEY";
    const put = (value: string) =>
      call(secretPath, {
        method: "PUT",
        token: TOKENS.owner,
        body: { value, allowedHosts: ["deploy.acme.test"] },
      });
    expect((await put(WRITTEN_SECRET)).status).toBe(201);
    expect((await put(ROTATED_SECRET)).status).toBe(200);

    // A capability request from a sandbox (a real box), dismissed by an owner.
    const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng-audit" });
    canaries.push(sandbox.env.BATON_TURN_TOKEN!, sandbox.env.BATON_SANDBOX_LEASE!);
    const recorded = await call(PATHS.capabilityRequests, {
      method: "POST",
      token: sandbox.env.BATON_TURN_TOKEN,
      headers: { [HEADERS.sandboxLease]: sandbox.env.BATON_SANDBOX_LEASE! },
      body: {
        repository: "acme/api",
        capability: "registry_access",
        target: "npm.acme.test",
        reason: "install",
      },
    });
    expect(recorded.status).toBe(201);
    const capabilityRequestId = ((await recorded.json()) as { request: { requestId: string } }).request
      .requestId;
    const dismissed = await call(
      `/workspaces/ws_acme/repos/repo_api/capability-requests/${capabilityRequestId}/dismiss`,
      { method: "POST", token: TOKENS.owner },
    );
    expect(dismissed.status).toBe(200);

    // The box stopped (work finished), then archived (cancelled).
    const owner = { workspaceId: "ws_acme", engagementId: "eng-audit" };
    const lifecycle = (event: string) =>
      serve.admin(`${ADMIN_PATHS.sandboxes}/${sandbox.sandboxId}/events`, { ...owner, event });
    expect((await lifecycle("work_finished")).status).toBe(200);
    expect((await lifecycle("cancelled")).status).toBe(200);

    // A box removed outside Baton is recorded lost when its engagement asks for a box again.
    const doomed = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng-lost" });
    // By its name (a box from the pool of ready boxes carries no engagement label: it was made before any task).
    const boxName = `baton-sandbox-${doomed.sandboxId.replace(/^sbx_/, "").slice(0, 24)}`;
    const ids = execFileSync("docker", ["ps", "-aq", "--filter", `name=${boxName}`], {
      encoding: "utf8",
    })
      .split("\n")
      .filter(Boolean);
    expect(ids.length).toBeGreaterThan(0);
    execFileSync("docker", ["rm", "-f", ...ids]);
    const again = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng-lost" });
    canaries.push(
      doomed.env.BATON_TURN_TOKEN!,
      doomed.env.BATON_SANDBOX_LEASE!,
      again.env.BATON_TURN_TOKEN!,
      again.env.BATON_SANDBOX_LEASE!,
    );

    // A task started and stopped through the public API (the seed's "slow" rule keeps it running).
    const started = await call(API_PATHS.tasks("ws_acme"), {
      method: "POST",
      token: TOKENS.owner,
      body: { prompt: "slow work for the audit log" },
    });
    expect(started.status).toBe(202);
    const taskId = ((await started.json()) as { task: { id: string } }).task.id;
    const stopped = await pollUntil(
      () => call(API_PATHS.stop("ws_acme", taskId), { method: "POST", token: TOKENS.owner }),
      (answer) => answer.status !== 409,
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    expect(stopped.status).toBe(202);

    // Every line is a JSON line; the events are there with their fields.
    const request = { requestId: expect.stringMatching(UUID) };
    expect(events(AUDIT_EVENTS.tokenCreated)).toEqual([
      expect.objectContaining({ ...request, actor: ADMIN_ACTOR, tokenId: token.id, owner: "dev@acme.test" }),
    ]);
    expect(events(AUDIT_EVENTS.tokenRevoked)).toEqual([
      expect.objectContaining({ ...request, actor: "dev@acme.test", tokenId: token.id }),
    ]);
    expect(events(AUDIT_EVENTS.adminCall)).toContainEqual(
      expect.objectContaining({
        ...request,
        actor: ADMIN_ACTOR,
        method: "POST",
        path: ADMIN_PATHS.tokens,
        status: 201,
      }),
    );
    expect(events(AUDIT_EVENTS.credentialFailed)).toEqual([
      expect.objectContaining({ ...request, source: "127.0.0.1", path: API_PATHS.me, failures: 1 }),
    ]);
    const secretLine = {
      ...request,
      actor: "owner@acme.test",
      workspace: "ws_acme",
      secretName: "DEPLOY_KEY",
    };
    expect(events(AUDIT_EVENTS.secretWritten)).toEqual([
      expect.objectContaining({ ...secretLine, rotated: false }),
      expect.objectContaining({ ...secretLine, rotated: true }),
    ]);
    expect(events(AUDIT_EVENTS.capabilityDismissed)).toEqual([
      expect.objectContaining({
        ...request,
        actor: "owner@acme.test",
        workspace: "ws_acme",
        capabilityRequestId,
      }),
    ]);
    const box = (sandboxId: string) => ({ actor: SERVICE_ACTOR, workspace: "ws_acme", sandboxId });
    expect(events(AUDIT_EVENTS.sandboxCreated)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ ...box(sandbox.sandboxId), driver: "docker" }),
        expect.objectContaining(box(doomed.sandboxId)),
        expect.objectContaining(box(again.sandboxId)),
      ]),
    );
    expect(events(AUDIT_EVENTS.sandboxStopped)).toContainEqual(
      expect.objectContaining({ ...box(sandbox.sandboxId), reason: "work_finished" }),
    );
    expect(events(AUDIT_EVENTS.sandboxArchived)).toContainEqual(
      expect.objectContaining({ ...box(sandbox.sandboxId), reason: "cancelled" }),
    );
    expect(events(AUDIT_EVENTS.sandboxLost)).toContainEqual(expect.objectContaining(box(doomed.sandboxId)));
    const task = { ...request, actor: "owner@acme.test", workspace: "ws_acme", taskId };
    expect(events(AUDIT_EVENTS.taskStarted)).toEqual([expect.objectContaining(task)]);
    expect(events(AUDIT_EVENTS.taskStopped)).toEqual([expect.objectContaining(task)]);
    for (const line of lines()) expect(line.level).toBeGreaterThanOrEqual(30);

    const everything = serve.output();
    for (const canary of canaries) expect(everything).not.toContain(canary);
  }, 180_000);

  it("BATON_LOG_LEVEL=silent still silences it", async () => {
    const quiet = await startServe({ env: { BATON_LOG_LEVEL: "silent" } });
    try {
      expect(
        (await quiet.admin(ADMIN_PATHS.tokens, { email: "nobody@acme.test", name: "x", lifetimeDays: 30 }))
          .status,
      ).toBe(404);
      expect((await fetch(new URL(API_PATHS.me, quiet.url))).status).toBe(401);
      expect(await quiet.stop()).toBe(0);
      expect(quiet.stderr()).toBe("");
    } finally {
      await quiet.stop();
    }
  });
});
