// Reference section 8 "Limits" (running tasks, request rate) and section 7's 429 codes, through app.request().
// The scripted agent holds turns ("hold" waits ten minutes, until stopped) so tasks stay running while counted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { type ApiHarness, createApiHarness, freshToken, waitForStatus } from "./harness.js";

const USERS = Array.from({ length: 21 }, (_, i) => `user${i}@load.test`);
const SEED = {
  agent: { rules: [{ match: "hold", delayMs: 600_000, reply: "held" }, { reply: "quick" }] },
  workspaces: [
    {
      id: "ws_load",
      name: "Load",
      plan: { name: "big", concurrency: 200, queueSize: 500 },
      members: USERS.map((email) => ({ email, role: "member" })),
      repositories: [{ repository: "load/app" }],
      tracker: {
        connected: true,
        issues: [{ id: "trk_x", identifier: "LOAD-1", title: "from the tracker", assignee: null }],
      },
    },
    {
      id: "ws_tight",
      name: "Tight",
      plan: { name: "tight", concurrency: 1, queueSize: 0 },
      members: USERS.map((email) => ({ email, role: "member" })),
      repositories: [{ repository: "tight/app" }],
      tracker: {
        connected: true,
        issues: [{ id: "trk_t", identifier: "TIGHT-1", title: "waits for a slot", assignee: null }],
      },
    },
  ],
};

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness({ seed: SEED });
  await h.db.run("UPDATE members SET tracker_identity = 'u0-t', tracker_identity_bound = 1 WHERE email = ?", [
    USERS[0]!,
  ]);
});
afterAll(async () => {
  await h.close();
});

const start = (token: string, prompt: string) =>
  h.call("POST", API_PATHS.tasks("ws_load"), { token, body: { prompt } });
async function stopAll() {
  const token = await freshToken(h, USERS[20]);
  for (const { id, workspace_id } of (await h.db.all(
    "SELECT id, workspace_id FROM tasks WHERE status IN ('pending', 'implementing')",
  )) as { id: string; workspace_id: string }[])
    await h.call("POST", API_PATHS.stop(workspace_id, id), { token });
}

describe("running tasks: 5 per workspace per user from the client, MCP or API, counting starting, running and queued", () => {
  it("the sixth gets 429 too_many_running with limit 5", async () => {
    const token = await freshToken(h, USERS[0]);
    const held: string[] = [];
    for (let i = 0; i < 5; i++) {
      const answer = await start(await token, `hold ${i}`);
      expect(answer.status).toBe(202);
      held.push(answer.body.task.id);
    }
    const sixth = await start(await token, "hold 6");
    expect(sixth.status).toBe(429);
    expect(sixth.body).toMatchObject({ error: "too_many_running", limit: 5, running: 5 });
    // Another person is not limited by this one's tasks.
    expect((await start(await freshToken(h, USERS[1]), "quick one")).status).toBe(202);

    // "messages on existing tasks are not capped"
    expect(
      (await h.call("POST", API_PATHS.messages("ws_load", held[0]!), { token, body: { text: "more" } }))
        .status,
    ).toBe(202);
    // "tasks started from issue trackers ... do not count"
    expect(
      (
        await h.call("POST", API_PATHS.delegate("ws_load"), {
          token,
          body: { source: "tracker", id: "LOAD-1" },
        })
      ).status,
    ).toBe(202);

    // "tasks waiting for a reply do not count": stop one (cancelled), the next start is accepted.
    await h.call("POST", API_PATHS.stop("ws_load", held[4]!), { token });
    await waitForStatus(h, held[4]!, ["cancelled"]);
    expect((await start(await token, "hold again")).status).toBe(202);
    await stopAll();
  });

  it("tasks waiting for a reply (the agent answered or asked) do not count", async () => {
    const token = await freshToken(h, USERS[9]);
    for (let i = 0; i < 6; i++) {
      const answer = await start(token, `quick ${i}`);
      expect(answer.status, `start ${i + 1}`).toBe(202);
      await waitForStatus(h, answer.body.task.id, ["replied"]);
    }
    // Six replied tasks count for nothing: five more that run are accepted, the one after them is not.
    for (let i = 0; i < 5; i++) expect((await start(token, `hold w${i}`)).status).toBe(202);
    expect((await start(token, "hold w5")).body.error).toBe("too_many_running");
    await stopAll();
  });

  it("20 people starting 6 tasks each at once: exactly 5 accepted for each", async () => {
    const tokens = USERS.slice(0, 20).map((email) => freshToken(h, email));
    const answers = await Promise.all(
      tokens.flatMap((token, u) =>
        Array.from({ length: 6 }, async (_, i) =>
          start(await token, `hold ${u}-${i}`).then((a) => ({ u, a })),
        ),
      ),
    );
    for (let u = 0; u < 20; u++) {
      const mine = answers.filter((x) => x.u === u).map((x) => x.a);
      expect(
        mine.filter((a) => a.status === 202),
        `user ${u}`,
      ).toHaveLength(5);
      expect(mine.filter((a) => a.status === 429 && a.body.error === "too_many_running")).toHaveLength(1);
    }
    await stopAll();
  });
});

describe("request rate: per token and per endpoint, 600 GET and 120 POST or DELETE a minute; over it 429 bad_request with Retry-After", () => {
  it("the 121st POST in a minute is refused with Retry-After; another endpoint and another token are not", async () => {
    const token = await freshToken(h, USERS[2]);
    let last: Awaited<ReturnType<typeof start>> | undefined;
    for (let i = 0; i < 121; i++) {
      last = await h.call("POST", API_PATHS.stop("ws_load", "task_none"), { token });
      if (i < 120) expect(last.status, `request ${i + 1}`).toBe(404);
    }
    expect(last!.status).toBe(429);
    expect(last!.body).toMatchObject({
      error: "bad_request",
      reason: expect.stringMatching(/120 POST requests a minute/),
    });
    const retryAfter = Number(last!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(
      (await h.call("POST", API_PATHS.messages("ws_load", "task_none"), { token, body: { text: "x" } }))
        .status,
    ).toBe(404);
    expect(
      (await h.call("POST", API_PATHS.stop("ws_load", "task_none"), { token: await freshToken(h, USERS[2]) }))
        .status,
    ).toBe(404);
    h.clock.offsetMs = retryAfter * 1000;
    try {
      expect((await h.call("POST", API_PATHS.stop("ws_load", "task_none"), { token })).status).toBe(404);
    } finally {
      h.clock.offsetMs = 0;
    }
  });

  it("the 601st GET in a minute is refused; a GET to another endpoint is not", async () => {
    const token = await freshToken(h, USERS[3]);
    for (let i = 0; i < 600; i++)
      expect((await h.call("GET", API_PATHS.tasks("ws_load"), { token })).status).toBe(200);
    const refused = await h.call("GET", API_PATHS.tasks("ws_load"), { token });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await h.call("GET", API_PATHS.me, { token })).status).toBe(200);
  });

  it("the limit applies before membership: a non-member's probing is limited too", async () => {
    const token = await freshToken(h, USERS[4]);
    for (let i = 0; i < 120; i++)
      expect((await h.call("POST", API_PATHS.stop("ws_elsewhere", "t"), { token })).status).toBe(404);
    expect((await h.call("POST", API_PATHS.stop("ws_elsewhere", "t"), { token })).status).toBe(429);
  });
});

describe("every 429 carries Retry-After (DESIGN: every surface answers 429 with Retry-After)", () => {
  const refusals: [string, () => Promise<Awaited<ReturnType<typeof start>>>][] = [
    [
      "too_many_running: a sixth start of one person",
      async () => {
        const token = await freshToken(h, USERS[5]);
        for (let i = 0; i < 5; i++) expect((await start(token, `hold r${i}`)).status).toBe(202);
        return start(token, "hold r5");
      },
    ],
    [
      "queue_full: a start with no slot free and no queue place",
      async () => {
        const held = await h.call("POST", API_PATHS.tasks("ws_tight"), {
          token: await freshToken(h, USERS[6]),
          body: { prompt: "hold the slot" },
        });
        expect(held.status).toBe(202);
        return h.call("POST", API_PATHS.tasks("ws_tight"), {
          token: await freshToken(h, USERS[7]),
          body: { prompt: "no room" },
        });
      },
    ],
    [
      "queue_full: a delegation with no slot free and no queue place",
      async () => {
        const held = await h.call("POST", API_PATHS.tasks("ws_tight"), {
          token: await freshToken(h, USERS[6]),
          body: { prompt: "hold the slot" },
        });
        expect(held.status).toBe(202);
        return h.call("POST", API_PATHS.delegate("ws_tight"), {
          token: await freshToken(h, USERS[0]),
          body: { source: "tracker", id: "TIGHT-1" },
        });
      },
    ],
    [
      "bad_request: over the request rate",
      async () => {
        const token = await freshToken(h, USERS[8]);
        for (let i = 0; i < 120; i++)
          await h.call("POST", API_PATHS.stop("ws_tight", "task_none"), { token });
        return await h.call("POST", API_PATHS.stop("ws_tight", "task_none"), { token });
      },
    ],
  ];
  it.each(refusals)("%s", async (_case, refuse) => {
    try {
      const answer = await refuse();
      expect(answer.status).toBe(429);
      expect(answer.headers.get("retry-after")).toMatch(/^[1-9][0-9]*$/);
    } finally {
      await stopAll();
    }
  });
});
