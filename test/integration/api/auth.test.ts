// Reference section 5 (Authentication), section 2 "Access token", GET /v1/me and DELETE /v1/me/token, through
// app.request(): every rule as a row named after the reference's sentence.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPersonalToken } from "../../../src/server/domain/auth/personal-tokens-store.js";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { type ApiHarness, CANARIES, createApiHarness, TOKENS } from "./harness.js";

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness();
});
afterAll(async () => {
  await h.close();
});

const WORKSPACE_ROUTES: [string, string, unknown?][] = [
  ["GET", API_PATHS.tasks("ws_acme")],
  ["POST", API_PATHS.tasks("ws_acme"), { prompt: "x" }],
  ["GET", API_PATHS.task("ws_acme", "task_x")],
  ["POST", API_PATHS.stop("ws_acme", "task_x")],
  ["GET", API_PATHS.messages("ws_acme", "task_x")],
  ["POST", API_PATHS.messages("ws_acme", "task_x"), { text: "x" }],
  ["GET", API_PATHS.activity("ws_acme", "task_x")],
  ["GET", API_PATHS.tickets("ws_acme")],
  ["POST", API_PATHS.delegate("ws_acme"), { source: "tracker", id: "ENG-2" }],
];
const ALL_ROUTES: [string, string, unknown?][] = [
  ["GET", API_PATHS.me],
  ["DELETE", API_PATHS.meToken],
  ...WORKSPACE_ROUTES,
];

describe("authentication", () => {
  const expired = async () => {
    const made = await createPersonalToken(
      h.db,
      { email: "dev@acme.test", name: "old", lifetimeDays: 30 },
      new Date(Date.now() - 31 * 86400000),
    );
    return made.token;
  };
  // RFC 6750 section 3: every 401 carries a Bearer challenge; error="invalid_token" only when a token was sent.
  const BARE = 'Bearer realm="baton"';
  const INVALID = 'Bearer realm="baton", error="invalid_token"';
  const cases: [string, () => Record<string, string> | null | Promise<Record<string, string>>, string][] = [
    ["a missing token gets 401 invalid_token", () => ({}), BARE],
    [
      "a malformed token (not Bearer) gets 401 invalid_token",
      () => ({ authorization: `Basic ${TOKENS.dev}` }),
      INVALID,
    ],
    [
      "a malformed token (no btn_ prefix) gets 401 invalid_token",
      () => ({ authorization: "Bearer ghp_abcdefghijklmnopqrstuvwxyz" }),
      INVALID,
    ],
    [
      "an unknown token gets 401 invalid_token",
      () => ({ authorization: `Bearer btn_${"z".repeat(43)}` }),
      INVALID,
    ],
    [
      "an expired token gets 401 invalid_token",
      async () => ({ authorization: `Bearer ${await expired()}` }),
      INVALID,
    ],
  ];
  for (const [rule, headers, challenge] of cases) {
    it.each(ALL_ROUTES)(`${rule} with WWW-Authenticate: ${challenge}: %s %s`, async (method, path, body) => {
      const answer = await h.call(method, path, { token: null, headers: (await headers()) ?? {}, body });
      expect(answer.status).toBe(401);
      expect(answer.headers.get("www-authenticate")).toBe(challenge);
      expect(answer.body).toMatchObject({
        error: "invalid_token",
        reason: expect.any(String),
        requestId: expect.any(String),
      });
    });
  }

  it.each(WORKSPACE_ROUTES)(
    "a workspace the caller does not belong to answers 404, never 403: %s %s",
    async (method, path, body) => {
      const answer = await h.call(method, path, { token: TOKENS.stranger, body });
      expect(answer.status).toBe(404);
      expect(answer.body.error).toBe("not_found");
    },
  );

  it.each(WORKSPACE_ROUTES.map(([m, p, b]) => [m, p.replace("ws_acme", "ws_missing"), b] as const))(
    "a workspace that does not exist answers the same 404: %s %s",
    async (method, path, body) => {
      const answer = await h.call(method, path, { body });
      expect(answer.status).toBe(404);
      expect(answer.body.error).toBe("not_found");
    },
  );

  it("a personal access token acts as its user in every workspace the user belongs to, with the user's role in each", async () => {
    const me = await h.call("GET", API_PATHS.me, { token: TOKENS.owner });
    expect(me.status).toBe(200);
    expect(me.body.workspaces).toEqual([
      { id: "ws_acme", name: "Acme", role: "owner" },
      { id: "ws_beta", name: "Beta", role: "member" },
    ]);
    expect((await h.call("GET", API_PATHS.tasks("ws_beta"), { token: TOKENS.owner })).status).toBe(200);
  });

  // ws_0middle is seeded last and its id sorts first: only an order by name puts it between Broke and No Host.
  it("GET /v1/me returns {user, workspaces[]} for the token's user, workspaces ordered by name", async () => {
    const me = await h.call("GET", API_PATHS.me);
    expect(me.body).toEqual({
      user: { id: expect.stringMatching(/^usr_/), codehostLogin: "dev-gh", name: "Dev Eloper" },
      workspaces: [
        { id: "ws_acme", name: "Acme", role: "member" },
        { id: "ws_broke", name: "Broke", role: "member" },
        { id: "ws_0middle", name: "Middle", role: "member" },
        { id: "ws_nohost", name: "No Host", role: "member" },
      ],
    });
    const nolink = await h.call("GET", API_PATHS.me, { token: TOKENS.nolink });
    expect(nolink.body.user.codehostLogin).toBe("");
  });

  it("membership is checked on every request; leaving a workspace ends the token's effect there", async () => {
    const made = await createPersonalToken(
      h.db,
      { email: "owner@acme.test", name: "leaver", lifetimeDays: 90 },
      new Date(),
    );
    expect((await h.call("GET", API_PATHS.tasks("ws_beta"), { token: made.token })).status).toBe(200);
    // No route removes a member yet (the dashboard comes later): the store is changed as the dashboard would.
    await h.db.run("DELETE FROM members WHERE workspace_id = 'ws_beta' AND email = 'owner@acme.test'");
    expect((await h.call("GET", API_PATHS.tasks("ws_beta"), { token: made.token })).status).toBe(404);
    expect((await h.call("GET", API_PATHS.tasks("ws_acme"), { token: made.token })).status).toBe(200);
    expect(
      (await h.call("GET", API_PATHS.me, { token: made.token })).body.workspaces.map(
        (w: { id: string }) => w.id,
      ),
    ).toEqual(["ws_acme"]);
  });

  it("DELETE /v1/me/token revokes the token that sent the request; 204 with no body; afterwards that token gets 401", async () => {
    const made = await createPersonalToken(
      h.db,
      { email: "dev@acme.test", name: "ci", lifetimeDays: 30 },
      new Date(),
    );
    const other = await createPersonalToken(
      h.db,
      { email: "dev@acme.test", name: "laptop", lifetimeDays: 30 },
      new Date(),
    );
    const revoked = await h.call("DELETE", API_PATHS.meToken, { token: made.token });
    expect(revoked.status).toBe(204);
    expect(revoked.body).toBeUndefined();
    for (const [method, path, body] of ALL_ROUTES) {
      const answer = await h.call(method, path, { token: made.token, body });
      expect(answer.status, `${method} ${path}`).toBe(401);
      expect(answer.body.error).toBe("invalid_token");
      expect(answer.headers.get("www-authenticate")).toBe('Bearer realm="baton", error="invalid_token"');
    }
    expect((await h.call("GET", API_PATHS.me, { token: other.token })).status).toBe(200);
    // The member routes (capability requests, secrets) read the same tokens: revoked there too.
    const capabilityRequests = "/workspaces/ws_acme/repos/repo_api/capability-requests";
    expect((await h.call("GET", capabilityRequests, { token: made.token })).status).toBe(401);
    expect((await h.call("GET", capabilityRequests, { token: other.token })).status).not.toBe(401);
  });

  it("a token expires after at most 365 days", async () => {
    const made = await createPersonalToken(
      h.db,
      { email: "dev@acme.test", name: "year", lifetimeDays: 365 },
      new Date(),
    );
    h.clock.offsetMs = 364 * 86_400_000;
    expect((await h.call("GET", API_PATHS.me, { token: made.token })).status).toBe(200);
    h.clock.offsetMs = 365 * 86_400_000 + 1;
    expect((await h.call("GET", API_PATHS.me, { token: made.token })).status).toBe(401);
    h.clock.offsetMs = 0;
  });

  it("no response carries a token or a secret value", () => {
    expect(h.seen.length).toBeGreaterThan(50);
    const all = h.seen.map((s) => s.text + JSON.stringify([...s.headers])).join("\n");
    for (const canary of CANARIES) expect(all).not.toContain(canary);
  });
});
