// Reference section 3 "Capability request", row by row, through the real CLI, a real `baton serve` on a SQLite
// file and a real SMTP server on loopback. Owners/admins act through the workspace routes with their tokens.
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RecordCapabilityResponse } from "../../../src/transport/wire.js";
import { killLeftoverServes } from "../../helpers/serve.js";
import { CANARIES, paths, startWorld, TOKENS, until, type World } from "./harness.js";

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
  await killLeftoverServes();
});

const record = async (args: string[]): Promise<RecordCapabilityResponse> => {
  const run = await world.request([...args, "--json"]);
  expect(run.exitCode, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as RecordCapabilityResponse;
};
/** Evidence on the registry request every row of the table works on. */
const reportEvidence = (evidence: string, status?: string) =>
  record([
    ...["--capability", "registry_access", "--target", "registry.example.com", "--evidence", evidence],
    ...(status === undefined ? [] : ["--status", status]),
  ]);
const mailsFor = (requestId: string) => world.smtp.received.filter((m) => m.subject.includes(requestId));
const putSecret = (token: string, name: string, body: unknown) =>
  world.member(token, "PUT", paths.secret("ws_acme", "repo_api", name), body);

describe("capability request state table", () => {
  let id: string;

  it("(none) + request-capability, no match -> open; owners/admins get one e-mail with a dashboard link", async () => {
    const run = await world.request([
      "--capability",
      "npm",
      "--target",
      "https://Registry.Example.com:443/x",
      "--reason",
      "npm install gets 401 from the private registry",
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    id = /request (cr_[0-9a-f]+) \(open\)/.exec(run.stdout)![1]!;
    expect(run.stdout).toContain("baton op get");
    await until(() => mailsFor(id).length === 2, "two e-mails");
    const mails = mailsFor(id);
    expect(mails.map((m) => m.to[0]).sort()).toEqual(["admin@acme.test", "owner@acme.test"]);
    for (const mail of mails) {
      expect(mail.decoded).toContain("acme/api");
      expect(mail.decoded).toContain("registry_access");
      expect(mail.decoded).toContain("registry.example.com");
      expect(mail.decoded).toContain(id);
      expect(mail.decoded).toContain(
        `https://dash.example.test/workspaces/ws_acme/repos/repo_api/capability-requests/${id}`,
      );
    }
  });

  it("same command, exact target (https://Registry.Example.com:443/x == registry.example.com) -> unchanged, no new request", async () => {
    const again = await record([
      "--capability",
      "registry_access",
      "--target",
      "registry.example.com",
      "--reason",
      "still 401",
    ]);
    expect(again).toMatchObject({
      matched: true,
      matchedBy: "target",
      request: { requestId: id, status: "open" },
    });
    const rows = await world.rows("SELECT id FROM capability_requests WHERE target = 'registry.example.com'");
    expect(rows).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsFor(id)).toHaveLength(2);
  });

  it("open + network or provider evidence -> unchanged, never invalidates", async () => {
    for (const outcome of ["network", "provider"]) {
      const answer = await record([
        "--capability",
        "registry_access",
        "--target",
        "registry.example.com",
        "--evidence",
        outcome,
      ]);
      expect(answer).toMatchObject({
        request: { requestId: id, status: "open" },
        evidence: { outcome, changed: false },
      });
    }
  });

  it("open + secret whose allowed hosts do not authorise the resource -> refused with the reason, nothing written", async () => {
    const refused = await putSecret(TOKENS.owner, "NPM_TOKEN", {
      value: CANARIES[1],
      allowedHosts: ["other.example.com"],
      capabilityRequestId: id,
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: "secret_hosts_mismatch" });
    expect(refused.body.reason).toContain("registry.example.com");
    expect(await world.rows("SELECT name FROM secrets WHERE name = 'NPM_TOKEN'")).toHaveLength(0);
  });

  it("a member cannot supply access (owners/admins only) -> 403 forbidden", async () => {
    const refused = await putSecret(TOKENS.member, "NPM_TOKEN", {
      value: CANARIES[1],
      allowedHosts: ["registry.example.com"],
      capabilityRequestId: id,
    });
    expect(refused).toMatchObject({ status: 403, body: { error: "forbidden" } });
  });

  it("open + owner writes a secret with capabilityRequestId whose hosts authorise it -> verification_pending", async () => {
    const put = await putSecret(TOKENS.owner, "NPM_TOKEN", {
      value: CANARIES[1],
      allowedHosts: ["registry.example.com"],
      capabilityRequestId: id,
    });
    expect(put.status).toBe(201);
    expect(put.body.capabilityRequests).toMatchObject([
      { requestId: id, status: "verification_pending", accessSupplied: true },
    ]);
    const shown = await world.cli(["op", "get", id]);
    expect(shown.stdout).toContain("Status: verification_pending");
  });

  it("the agent reruns env activate to apply the new access: the secret arrives as a placeholder, never its value", async () => {
    const home = await mkdtemp(join(tmpdir(), "baton-cap-home-"));
    try {
      // Activation refuses a checkout that does not exist; an empty one is all this test needs.
      await mkdir(join(home, "checkouts", "acme", "api"), { recursive: true });
      const run = await world.cli(["env", "activate", "acme/api"], {
        HOME: home,
        BATON_CHECKOUT_ROOT: join(home, "checkouts"),
      });
      expect(run.exitCode, run.stderr).toBe(0);
      const environment = await readFile(join(home, ".baton", "environment.sh"), "utf8");
      expect(environment).toMatch(/export NPM_TOKEN='baton-secret-sec_[0-9a-f]{32}'/);
      world.outputs.push(environment);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("after access supplied + evidence permission (403) -> repair_needed on the same request; one repair e-mail each", async () => {
    const answer = await reportEvidence("permission", "403");
    expect(answer).toMatchObject({
      request: { requestId: id, status: "repair_needed" },
      evidence: { changed: true },
    });
    await until(() => mailsFor(id).length === 4, "repair e-mails");
    expect(mailsFor(id).filter((m) => m.subject.includes("needs repair"))).toHaveLength(2);
  });

  it("repair_needed + another authentication (401) is not a new actionable repair: no more e-mail", async () => {
    const answer = await reportEvidence("authentication", "401");
    expect(answer.request.status).toBe("repair_needed");
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsFor(id)).toHaveLength(4);
  });

  it("bound secret rotated -> satisfies the repair again (verification_pending)", async () => {
    const put = await putSecret(TOKENS.admin, "NPM_TOKEN", {
      value: CANARIES[2],
      allowedHosts: ["registry.example.com"],
    });
    expect(put.status).toBe(200);
    expect(put.body.capabilityRequests).toMatchObject([{ requestId: id, status: "verification_pending" }]);
  });

  it("verification_pending + authentication (401) -> repair_needed again, a new repair e-mail", async () => {
    const answer = await reportEvidence("authentication", "401");
    expect(answer.request.status).toBe("repair_needed");
    await until(() => mailsFor(id).length === 6, "second repair e-mails");
    // ...and rotation with capabilityRequestId satisfies it again.
    const put = await putSecret(TOKENS.owner, "NPM_TOKEN", {
      value: CANARIES[2],
      allowedHosts: ["registry.example.com"],
      capabilityRequestId: id,
    });
    expect(put.body.capabilityRequests).toMatchObject([{ requestId: id, status: "verification_pending" }]);
  });

  it("evidence verified records the exercised outcome (verification_pending -> verified)", async () => {
    const answer = await reportEvidence("verified");
    expect(answer.request).toMatchObject({ status: "verified", lastOutcome: { outcome: "verified" } });
  });

  it("matching never reopens a verified request", async () => {
    const again = await record([
      "--capability",
      "registry_access",
      "--target",
      "https://registry.example.com/v2",
      "--reason",
      "again",
    ]);
    expect(again).toMatchObject({ matched: true, request: { requestId: id, status: "verified" } });
  });

  describe("dismissal (Not now)", () => {
    let other: string;
    it("a member trying to dismiss is refused (403 forbidden); a non-member gets 404, never 403", async () => {
      other = (
        await record([
          "--capability",
          "api_key",
          "--target",
          "api.stripe.com",
          "--reason",
          "payments tests need a key",
        ])
      ).request.requestId;
      const byMember = await world.member(TOKENS.member, "POST", paths.dismiss("ws_acme", "repo_api", other));
      expect(byMember).toMatchObject({ status: 403, body: { error: "forbidden" } });
      const byOutsider = await world.member(
        TOKENS.outsider,
        "POST",
        paths.dismiss("ws_acme", "repo_api", other),
      );
      expect(byOutsider).toMatchObject({ status: 404, body: { error: "not_found" } });
      const listOutsider = await world.member(TOKENS.outsider, "GET", paths.list("ws_acme", "repo_api"));
      expect(listOutsider.status).toBe(404);
      const badToken = await world.member(
        "btn_nope_000000000000000000",
        "GET",
        paths.list("ws_acme", "repo_api"),
      );
      expect(badToken).toMatchObject({ status: 401, body: { error: "invalid_token" } });
    });

    it("members read the request metadata", async () => {
      const list = await world.member(TOKENS.member, "GET", paths.list("ws_acme", "repo_api"));
      expect(list.status).toBe(200);
      expect(list.body.requests.map((r: { requestId: string }) => r.requestId)).toEqual(
        expect.arrayContaining([id, other]),
      );
    });

    it("any open kind + owner/admin dismisses -> dismissed; it stays in force on rediscovery", async () => {
      const dismissed = await world.member(TOKENS.admin, "POST", paths.dismiss("ws_acme", "repo_api", other));
      expect(dismissed).toMatchObject({ status: 200, body: { request: { status: "dismissed" } } });
      // The new-request e-mails for this request are delivered asynchronously; count from when both arrived.
      await until(() => mailsFor(other).length === 2, "the new-request e-mails");
      const mailsBefore = world.smtp.received.length;
      const again = await world.request([
        "--capability",
        "apikey",
        "--target",
        "https://api.stripe.com/v1/charges",
        "--reason",
        "payments tests need a key",
      ]);
      expect(again.exitCode).toBe(0);
      expect(again.stdout).toContain(`Matched existing request ${other} (dismissed)`);
      expect(again.stdout).toContain("dismissal stays in force");
      await new Promise((r) => setTimeout(r, 300));
      expect(world.smtp.received.length).toBe(mailsBefore);
      // Supplying access to a dismissed request is refused.
      const put = await putSecret(TOKENS.owner, "STRIPE_KEY", {
        value: CANARIES[1],
        allowedHosts: ["api.stripe.com"],
        capabilityRequestId: other,
      });
      expect(put).toMatchObject({ status: 409, body: { error: "request_closed" } });
    });
  });

  it("a workspace without the rollout: the request is refused with exit 6 and the workspace routes answer 403 rollout_disabled", async () => {
    const { createSandbox } = await import("../../helpers/serve.js");
    const legacy = await createSandbox(world.serve, { workspaceId: "ws_legacy", engagementId: "eng_legacy" });
    const run = await world.cli(
      [
        "env",
        "request-capability",
        "--repo",
        "legacy/app",
        "--capability",
        "other",
        "--target",
        "legacy db",
        "--reason",
        "need it",
      ],
      legacy.env,
    );
    expect(run.exitCode).toBe(6);
    expect(run.stderr).toContain("rollout_disabled");
    const list = await world.member(TOKENS.legacyOwner, "GET", paths.list("ws_legacy", "repo_legacy"));
    expect(list).toMatchObject({ status: 403, body: { error: "rollout_disabled" } });
  });

  it("recording starts nothing and grants nothing: no operation is created and no secret is written", async () => {
    const operations = await world.rows("SELECT COUNT(*) AS n FROM operations");
    const secrets = await world.rows("SELECT name, allowed_hosts_json FROM secrets ORDER BY name");
    const answer = await record([
      "--capability",
      "service_credential",
      "--target",
      "cache.acme.test",
      "--reason",
      "cache login fails",
    ]);
    expect(answer).toMatchObject({ matched: false, request: { status: "open", accessSupplied: false } });
    expect(await world.rows("SELECT COUNT(*) AS n FROM operations")).toEqual(operations);
    expect(await world.rows("SELECT name, allowed_hosts_json FROM secrets ORDER BY name")).toEqual(secrets);
  });

  it("canary secrets appear in no e-mail, CLI output, service log or stored request", async () => {
    const stored = JSON.stringify([
      await world.rows("SELECT * FROM capability_requests"),
      await world.rows("SELECT * FROM capability_evidence"),
      await world.rows("SELECT * FROM notifications"),
      await world.rows("SELECT * FROM notification_deliveries"),
    ]);
    const everything = [
      stored,
      world.serve.output(),
      ...world.outputs,
      ...world.smtp.received.map((m) => m.raw + m.decoded),
    ];
    expect(everything.join("").length).toBeGreaterThan(1000);
    for (const canary of CANARIES) for (const text of everything) expect(text).not.toContain(canary);
  });
});
