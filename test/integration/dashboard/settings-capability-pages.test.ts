// The dashboard's settings, billing and capability-request pages (issue 25) in process: the real public listener,
// a real SQLite file seeded with fixtures/seeds/api.json, browsers played by session cookies. Capability requests
// are inserted as the sandbox side stores them (no sandbox runs here). The pages must call the member routes' own
// functions: a member is refused 403, another workspace is 404, a secret's value appears in no answer and no log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  billingPath,
  capabilityDismissPath,
  capabilityRequestPath,
  capabilityRequestsPath,
  capabilitySecretPath,
  settingsPath,
} from "../../../src/server/surfaces/pages/dashboard/wire.js";
import { createPagesHarness, csrfOf, type PagesHarness } from "../pages/harness.js";

let h: PagesHarness;
let owner: string;
let admin: string;
let member: string;
const CANARY = "canary-dashboard-secret-5b1e7c0d-never-shown";

async function insertRequest(id: string, target: string, status = "open") {
  const at = new Date().toISOString();
  await h.db.run(
    `INSERT INTO capability_requests (id, workspace_id, repository_id, repository, kind, target, target_form, reason, status, created_at, updated_at)
       VALUES (?, 'ws_acme', 'repo_api', 'acme/api', 'api_key', ?, 'host', 'the tests call the payment provider', ?, ?, ?)`,
    [id, target, status, at, at],
  );
}
const statusOf = async (id: string) =>
  ((await h.db.get("SELECT status FROM capability_requests WHERE id = ?", [id])) as { status: string })
    .status;

beforeAll(async () => {
  h = await createPagesHarness();
  owner = await h.signIn("owner@acme.test");
  admin = await h.signIn("unbound@acme.test");
  member = await h.signIn("dev@acme.test");
  for (const [id, target] of [
    ["cr_dismiss", "api.stripe.test"],
    ["cr_member", "api.member.test"],
    ["cr_secret", "api.pay.test"],
    ["cr_hosts", "api.hosts.test"],
  ])
    await insertRequest(id!, target!);
  await insertRequest("cr_verified", "api.done.test", "verified");
});
afterAll(async () => {
  await h.close();
});

const get = (path: string, cookie: string) => h.page("GET", path, { cookie });
async function post(path: string, cookie: string, fields: Record<string, string> = {}) {
  const csrf = csrfOf((await get(settingsPath("ws_acme"), cookie)).text);
  return h.page("POST", path, { cookie, form: { csrf, ...fields } });
}
const request = (id: string) => capabilityRequestPath("ws_acme", "repo_api", id);

describe("settings", () => {
  it.each([
    ["an owner", "owner@acme.test", true],
    ["an admin", "unbound@acme.test", true],
    ["a member", "dev@acme.test", false],
  ])(
    "%s sees the connections; owners and admins may add to the connected code host but are not asked to connect what is connected (issue 37 A.10); 'Link your account' to everyone",
    async (_c, email, connects) => {
      const page = await get(settingsPath("ws_acme"), await h.signIn(email));
      expect(page.status).toBe(200);
      expect(page.text).toContain("The code host is connected.");
      expect(page.text).toContain("The tracker is connected");
      expect(
        page.text.includes(
          'href="/install/codehost?workspace=ws_acme">Add repositories or another code-host account',
        ),
      ).toBe(connects);
      expect(page.text).not.toContain("Connect the code host");
      expect(page.text).not.toContain("Connect the tracker");
      expect(page.text).toContain('href="/install/tracker?workspace=ws_acme">Link your tracker account');
      expect(page.text).toContain(`href="${capabilityRequestsPath("ws_acme", "repo_api")}"`);
    },
  );

  it("shows the member's own linked accounts", async () => {
    const page = await get(settingsPath("ws_acme"), member);
    expect(page.text).toContain("Code host: dev-gh.");
    expect(page.text).toContain("Tracker: Linked as dev-t.");
    expect((await get(settingsPath("ws_acme"), await h.signIn("nolink@acme.test"))).text).toContain(
      "Tracker: Not linked",
    );
  });

  it.each([
    settingsPath("ws_aaa_other"),
    billingPath("ws_aaa_other"),
    capabilityRequestsPath("ws_aaa_other", "repo_api"),
  ])("answers 404 for another workspace's page (%s)", async (path) => {
    expect((await get(path, member)).status).toBe(404);
  });
});

describe("billing", () => {
  it("shows the plan's limits, the billing state and the running and queued counts", async () => {
    const page = await get(billingPath("ws_acme"), member);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Billing is active");
    expect(page.text).toMatch(/Plan<\/th><td>team</);
    expect(page.text).toMatch(/Tasks running at once<\/th><td>2</);
    expect(page.text).toMatch(/Queue size<\/th><td>3</);
    expect(page.text).toMatch(/Running now<\/th><td>0</);
  });

  it("says what to do when billing is inactive", async () => {
    const page = await get(billingPath("ws_broke"), member);
    expect(page.text).toContain("Billing is inactive: new tasks and delegations are refused");
    expect(page.text).toContain("What to do next");
  });
});

describe("capability requests", () => {
  it("lists a repository's requests, each linking to its page (the e-mails' link)", async () => {
    const page = await get(capabilityRequestsPath("ws_acme", "repo_api"), member);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`href="${request("cr_dismiss")}"`);
    expect(page.text).toContain("api.stripe.test");
  });

  it("shows a member the request and tells them only owners and admins act; no forms", async () => {
    const page = await get(request("cr_member"), member);
    expect(page.status).toBe(200);
    expect(page.text).toContain("the tests call the payment provider");
    expect(page.text).toContain("Only an owner or admin of the workspace can dismiss this request");
    expect(page.text).not.toContain(capabilityDismissPath("ws_acme", "repo_api", "cr_member"));
  });

  it.each([
    ["another repository of the workspace", capabilityRequestPath("ws_acme", "repo_web", "cr_member")],
    ["an unknown request", request("cr_nope")],
    ["an unknown repository", capabilityRequestPath("ws_acme", "repo_nope", "cr_member")],
  ])("answers 404 for %s", async (_c, path) => {
    expect((await get(path, owner)).status).toBe(404);
  });

  it("refuses the pages where repository environments are not enabled (403, the API's reason)", async () => {
    const repo = (await h.db.get("SELECT id FROM repositories WHERE workspace_id = 'ws_beta'")) as {
      id: string;
    };
    const page = await get(capabilityRequestsPath("ws_beta", repo.id), owner);
    expect(page.status).toBe(403);
    expect(page.text).toContain("repository environments are not enabled for this workspace");
  });
});

describe("Not now", () => {
  it.each([
    ["dismiss", (id: string) => capabilityDismissPath("ws_acme", "repo_api", id), {}],
    [
      "supply a secret",
      (id: string) => capabilitySecretPath("ws_acme", "repo_api", id),
      { name: "PAY_KEY", value: CANARY, allowedHosts: "api.member.test" },
    ],
  ])(
    "a member's POST (%s) is 403 with the request page saying who can act; nothing changes",
    async (_c, path, fields) => {
      const answer = await post(path("cr_member"), member, fields);
      expect(answer.status).toBe(403);
      expect(answer.text).toContain("only an owner or admin of Acme can do this; ask one of them");
      expect(answer.text).toContain("api.member.test");
      expect(await statusOf("cr_member")).toBe("open");
    },
  );

  it("an admin dismisses the request (Not now); a verified one is refused with the domain's reason (409 request_closed)", async () => {
    const answer = await post(capabilityDismissPath("ws_acme", "repo_api", "cr_dismiss"), admin);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("location")).toBe(`${request("cr_dismiss")}?done=dismissed`);
    expect(await statusOf("cr_dismiss")).toBe("dismissed");
    expect(
      h.logs.some((line) => line.includes('"capability.dismissed"') && line.includes("unbound@acme.test")),
    ).toBe(true);
    const closed = await post(capabilityDismissPath("ws_acme", "repo_api", "cr_verified"), admin);
    expect(closed.status).toBe(409);
    expect(closed.text).toMatch(
      /role="alert"><p>[^<]+<\/p><p>What to do next: <a href="[^"]+cr_verified">Back to the request/,
    );
    expect(await statusOf("cr_verified")).toBe("verified");
  });

  it("refuses a form without the session's CSRF token (403) and dismisses nothing", async () => {
    const answer = await h.page("POST", capabilityDismissPath("ws_acme", "repo_api", "cr_member"), {
      cookie: owner,
      form: { csrf: "forged" },
    });
    expect(answer.status).toBe(403);
    expect(answer.text).toContain("This form has expired");
    expect(await statusOf("cr_member")).toBe("open");
  });

  it("refuses a form over the body limit (413)", async () => {
    const answer = await post(capabilityDismissPath("ws_acme", "repo_api", "cr_member"), owner, {
      pad: "x".repeat(20_000),
    });
    expect(answer.status).toBe(413);
    expect(await statusOf("cr_member")).toBe("open");
  });
});

describe("supply a secret", () => {
  const supply = (id: string, fields: Record<string, string>) =>
    post(capabilitySecretPath("ws_acme", "repo_api", id), owner, fields);

  it.each([
    [
      "hosts that do not authorise the target",
      { name: "HOSTS_KEY", value: CANARY, allowedHosts: "elsewhere.test" },
      400,
      /api\.hosts\.test|elsewhere\.test/,
    ],
    [
      "a name that is not a shell name",
      { name: "9-bad", value: CANARY, allowedHosts: "api.hosts.test" },
      400,
      /secret name must be a shell variable name/,
    ],
    [
      "no value",
      { name: "HOSTS_KEY", value: "", allowedHosts: "api.hosts.test" },
      400,
      /Enter the secret&#39;s value/,
    ],
    [
      "no approved host",
      { name: "HOSTS_KEY", value: CANARY, allowedHosts: " " },
      400,
      /Give at least one approved host/,
    ],
    [
      "a host that is not a host",
      { name: "HOSTS_KEY", value: CANARY, allowedHosts: "Not A Host" },
      400,
      /Approved hosts: must be a lowercase host/,
    ],
  ])(
    "refuses %s with a reason naming what to fix, keeping the form but never the value",
    async (_c, fields, status, reason) => {
      const answer = await supply("cr_hosts", fields);
      expect(answer.status).toBe(status);
      expect(answer.text).toMatch(reason);
      expect(answer.text).not.toContain(CANARY);
      expect(await statusOf("cr_hosts")).toBe("open");
    },
  );

  it("saves the secret bound to the request; the value appears in no page, no answer and no log line", async () => {
    const answer = await supply("cr_secret", {
      name: "PAY_KEY",
      value: CANARY,
      allowedHosts: "api.pay.test",
    });
    expect(answer.status).toBe(303);
    expect(await statusOf("cr_secret")).toBe("verification_pending");
    const page = await get(answer.headers.get("location")!, owner);
    expect(page.text).toContain("The secret is saved with its approved hosts.");
    // Saved: the form now replaces it (issue 37 A.10); "Supply a secret" would say that none was saved.
    expect(page.text).toContain('<h2 id="supply">Replace the secret</h2>');
    expect(page.text).toContain("A secret is saved and waits for the agent to confirm that it works.");
    expect(page.text).not.toContain("Supply a secret");
    expect(h.logs.some((line) => line.includes('"secret.written"') && line.includes("PAY_KEY"))).toBe(true);
    expect(h.seen.filter((seen) => seen.text.includes(CANARY))).toEqual([]);
    expect(h.logs.filter((line) => line.includes(CANARY))).toEqual([]);
  });
});
