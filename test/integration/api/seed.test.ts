// The seed's task-engine parts under the seed's three-way merge (README "What applying a seed changes"): what the
// admin API changed survives re-seeding the same file, what the seed file changed is applied, issues are never
// deleted and keep their task, seeded tokens can be revoked like any other.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/log.js";
import { applySeed, SeedDocumentSchema } from "../../../src/server/index.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { API_SEED, type ApiHarness, createApiHarness, TOKENS } from "./harness.js";

let h: ApiHarness;
const seed = () => JSON.parse(readFileSync(API_SEED, "utf8"));
const reseed = (document: unknown) =>
  applySeed(h.db, SeedDocumentSchema.parse(document), new Date(), h.secretBox, createLogger({}));
const workspace = async () =>
  await h.db.get(
    "SELECT plan_name, plan_concurrency, plan_queue_size, billing_state FROM workspaces WHERE id = 'ws_acme'",
  );

beforeAll(async () => {
  h = await createApiHarness();
});
afterAll(async () => {
  await h.close();
});

describe("re-seeding the task engine's parts", () => {
  it("a billing state or plan set through the admin API survives re-seeding the same file; a changed seed value applies", async () => {
    await h.db.run(
      "UPDATE workspaces SET billing_state = 'inactive', plan_concurrency = 9 WHERE id = 'ws_acme'",
    );
    await reseed(seed());
    expect(await workspace()).toEqual({
      plan_name: "team",
      plan_concurrency: 9,
      plan_queue_size: 3,
      billing_state: "inactive",
    });
    const changed = seed();
    changed.workspaces[0].plan = { name: "team", concurrency: 4, queueSize: 3 };
    changed.workspaces[0].billing = "active";
    await reseed(changed);
    expect(await workspace()).toEqual({
      plan_name: "team",
      plan_concurrency: 4,
      plan_queue_size: 3,
      billing_state: "active",
    });
  });

  it("issues are added and updated, never deleted; a delegated issue keeps its task and assignee", async () => {
    expect(
      (await h.call("POST", API_PATHS.delegate("ws_acme"), { body: { source: "tracker", id: "ENG-2" } }))
        .status,
    ).toBe(202);
    const document = seed();
    document.workspaces[0].tracker.issues = [
      { id: "trk_2", identifier: "ENG-2", title: "Add rate limiting docs (edited)", assignee: null },
    ];
    await reseed(document);
    expect(await h.db.get("SELECT count(*) AS n FROM tickets WHERE workspace_id = 'ws_acme'")).toEqual({
      n: 8,
    });
    expect(await h.db.get("SELECT title, assignee, task_id FROM tickets WHERE id = 'trk_2'")).toEqual({
      title: "Add rate limiting docs (edited)",
      assignee: "dev-t",
      task_id: expect.stringMatching(/^task_/),
    });
  });

  it("the scripted agent's rules are replaced by a seed that has them, kept by one that has none", async () => {
    const count = async () => ((await h.db.get("SELECT count(*) AS n FROM agent_rules")) as { n: number }).n;
    const before = await count();
    const withoutAgent = seed();
    delete withoutAgent.agent;
    await reseed(withoutAgent);
    expect(await count()).toBe(before);
    await reseed({ ...withoutAgent, agent: { rules: [{ reply: "only rule" }] } });
    expect(await count()).toBe(1);
  });

  it("a seeded token has an id and its last four, so it can be revoked; re-seeding does not bring it back", async () => {
    const row = (await h.db.get("SELECT id, last_four FROM personal_access_tokens WHERE last_four = ?", [
      TOKENS.unbound.slice(-4),
    ])) as {
      id: string;
    };
    expect(row.id).toMatch(/^pat_/);
    expect((await h.call("DELETE", API_PATHS.meToken, { token: TOKENS.unbound })).status).toBe(204);
    await reseed(seed());
    expect((await h.call("GET", API_PATHS.me, { token: TOKENS.unbound })).status).toBe(401);
  });

  it("a member's tracker identity and name come from the seed", async () => {
    expect(
      await h.db.get(
        "SELECT tracker_identity, tracker_identity_bound FROM members WHERE email = 'unbound@acme.test'",
      ),
    ).toEqual({
      tracker_identity: "ub-t",
      tracker_identity_bound: 0,
    });
    expect(await h.db.get("SELECT name, codehost_login FROM users WHERE email = 'owner@acme.test'")).toEqual({
      name: "Olive Owner",
      codehost_login: "olive",
    });
  });
});
