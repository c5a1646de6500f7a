// The settings page's Agent section (issue 34, point 1) in process: the real public listener over a real store
// seeded with fixtures/seeds/api.json, browsers played by session cookies, forms posted urlencoded as a browser
// without JavaScript posts them. The service's image is said to hold Codex and Gemini CLI (`installedAgents`: no
// sandbox driver runs here); no turn runs, so no agent is made. Owners and admins change the choice, a member is
// refused 403 and nothing changes, a form without the session's token is refused, an agent the service cannot
// run is refused naming what to pick.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { agentSettingsPath, settingsPath } from "../../../src/server/surfaces/pages/dashboard/wire.js";
import { CSRF_FIELD } from "../../../src/server/surfaces/pages/wire.js";
import { createPagesHarness, csrfOf, type PagesHarness } from "../pages/harness.js";

let h: PagesHarness;
let owner: string;
let admin: string;
let member: string;

beforeAll(async () => {
  h = await createPagesHarness({ tasks: { installedAgents: () => ["codex", "gemini"] } });
  owner = await h.signIn("owner@acme.test");
  admin = await h.signIn("unbound@acme.test");
  member = await h.signIn("dev@acme.test");
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  await h.db.run("UPDATE workspaces SET agent_id = NULL");
});

const get = (path: string, cookie: string) => h.page("GET", path, { cookie });
/** Posts the Agent form as the signed-in browser, with the session's token from the settings page. */
async function choose(cookie: string, agent: string) {
  const csrf = csrfOf((await get(settingsPath("ws_acme"), cookie)).text);
  return h.page("POST", agentSettingsPath("ws_acme"), { cookie, form: { [CSRF_FIELD]: csrf, agent } });
}
const stored = async () =>
  ((await h.db.get("SELECT agent_id FROM workspaces WHERE id = 'ws_acme'")) as { agent_id: string | null })
    .agent_id;
/** The Agent section of a settings page. */
const agentSection = (page: string) =>
  /<section aria-labelledby="agent">[\s\S]*?<\/section>/.exec(page)?.[0] ?? "";

describe("the Agent section", () => {
  it("shows the service default when the workspace chose none, and says a change applies from the next turn", async () => {
    const section = agentSection((await get(settingsPath("ws_acme"), owner)).text);
    expect(section).toContain(
      "This workspace's tasks run with the service default: <strong>the scripted agent</strong>.",
    );
    expect(section).toContain(
      "A turn running now finishes with the agent it started with; each task&#39;s next turn uses the choice.",
    );
  });

  it("offers owners and admins a form: the service default and the agents the image holds", async () => {
    for (const cookie of [owner, admin]) {
      const section = agentSection((await get(settingsPath("ws_acme"), cookie)).text);
      expect(section).toContain(`<form method="post" action="${agentSettingsPath("ws_acme")}">`);
      expect(section).toContain(`name="${CSRF_FIELD}"`);
      const options = [...section.matchAll(/<option value="([^"]*)"( selected)?>([^<]*)<\/option>/g)].map(
        (m) => [m[1], m[3], m[2] === " selected"],
      );
      expect(options).toEqual([
        ["", "The service default (the scripted agent)", true],
        ["codex", "Codex", false],
        ["gemini", "Gemini CLI", false],
      ]);
    }
  });

  it("shows a member the choice read-only, saying who can change it", async () => {
    await choose(owner, "codex");
    const section = agentSection((await get(settingsPath("ws_acme"), member)).text);
    expect(section).toContain("This workspace's tasks run with <strong>Codex</strong>.");
    expect(section).toContain("The service default is the scripted agent.");
    expect(section).toContain("Only an owner or admin of the workspace chooses its agent; ask one of them.");
    expect(section).not.toContain("<form");
  });
});

describe("changing the agent", () => {
  it.each([
    ["an owner", () => owner, "owner@acme.test"],
    ["an admin", () => admin, "unbound@acme.test"],
  ])(
    "%s changes it: 303 back to the page with a notice, the choice stored and audited",
    async (_who, cookie, email) => {
      const answer = await choose(cookie(), "gemini");
      expect(answer.status).toBe(303);
      expect(answer.headers.get("location")).toBe(`${settingsPath("ws_acme")}?agent=saved#agent`);
      expect(await stored()).toBe("gemini");
      const section = agentSection((await get(answer.headers.get("location")!, cookie())).text);
      expect(section).toContain('<p class="notice" role="status">The agent is saved.');
      expect(section).toContain("This workspace's tasks run with <strong>Gemini CLI</strong>.");
      expect(section).toContain('<option value="gemini" selected>Gemini CLI</option>');
      const audit = h.logs
        .map((line) => JSON.parse(line))
        .filter((line) => line.event === "workspace.agent_chosen");
      expect(audit.at(-1)).toMatchObject({ actor: email, workspace: "ws_acme", agent: "gemini" });
    },
  );

  it("the empty choice goes back to the service default", async () => {
    await choose(owner, "codex");
    expect((await choose(owner, "")).status).toBe(303);
    expect(await stored()).toBeNull();
  });

  it("a member is refused 403 on the page, saying who can, and nothing changes", async () => {
    await choose(owner, "codex");
    const answer = await choose(member, "gemini");
    expect(answer.status).toBe(403);
    expect(agentSection(answer.text)).toContain(
      "The agent was not changed: only an owner or admin of Acme chooses its coding agent; ask one of them",
    );
    expect(await stored()).toBe("codex");
  });

  it("a form without the session's token, or with another session's, is refused 403 and nothing changes", async () => {
    const missing = await h.page("POST", agentSettingsPath("ws_acme"), {
      cookie: owner,
      form: { agent: "codex" },
    });
    expect(missing.status).toBe(403);
    expect(missing.text).toContain("This form has expired");
    const otherSession = csrfOf((await get(settingsPath("ws_acme"), admin)).text);
    const crossed = await h.page("POST", agentSettingsPath("ws_acme"), {
      cookie: owner,
      form: { [CSRF_FIELD]: otherSession, agent: "codex" },
    });
    expect(crossed.status).toBe(403);
    expect(await stored()).toBeNull();
  });

  it.each([
    [
      "an id no agent has",
      "gpt-pilot",
      "&quot;gpt-pilot&quot; is not a coding agent this service knows: pick the service default (the scripted agent) or one of Codex (codex), Gemini CLI (gemini)",
    ],
    [
      "a catalog agent the image lacks",
      "opencode",
      "opencode is not installed in this service&#39;s sandbox image: pick the service default (the scripted agent) or one of Codex (codex), Gemini CLI (gemini); an operator adds it with npm run sandbox-image -- --agents=opencode",
    ],
  ])("%s is refused 400 on the page with what to pick, and nothing changes", async (_case, agent, reason) => {
    const answer = await choose(owner, agent);
    expect(answer.status).toBe(400);
    expect(agentSection(answer.text)).toContain(
      `<div class="error" role="alert"><p>The agent was not changed: ${reason}</p></div>`,
    );
    expect(await stored()).toBeNull();
  });

  it("a form naming no agent is refused 400", async () => {
    const csrf = csrfOf((await get(settingsPath("ws_acme"), owner)).text);
    const answer = await h.page("POST", agentSettingsPath("ws_acme"), {
      cookie: owner,
      form: { [CSRF_FIELD]: csrf },
    });
    expect(answer.status).toBe(400);
    expect(answer.text).toContain("The form names no agent: pick one from the list and save it again.");
  });

  it("another workspace's form answers 404, as its pages do", async () => {
    const csrf = csrfOf((await get(settingsPath("ws_acme"), owner)).text);
    const answer = await h.page("POST", agentSettingsPath("ws_aaa_other"), {
      cookie: owner,
      form: { [CSRF_FIELD]: csrf, agent: "codex" },
    });
    expect(answer.status).toBe(404);
  });

  it("the form's address, reloaded, leads back to the settings page", async () => {
    const answer = await get(agentSettingsPath("ws_acme"), owner);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(settingsPath("ws_acme"));
  });

  it("a stored choice the service no longer runs is shown as it is, escaped, with what happens to turns", async () => {
    await h.db.run("UPDATE workspaces SET agent_id = ? WHERE id = 'ws_acme'", [
      '<img src=x onerror="alert(1)">',
    ]);
    const section = agentSection((await get(settingsPath("ws_acme"), owner)).text);
    expect(section).not.toContain("<img");
    expect(section).toContain(
      "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; is not one this service can run now",
    );
    expect(section).toContain("(not available)</option>");
  });
});
