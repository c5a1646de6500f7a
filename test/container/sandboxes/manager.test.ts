// The sandbox manager on the real Docker driver, a real SQLite file and an injected clock: `.batonrc.json` keys
// applied at creation, the image pinned per engagement across a lost box, ownership before reuse and deletion,
// and every lifecycle transition of reference section 3 visible through the admin API.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../../src/log.js";
import { checkCheckoutRoot } from "../../../src/server/adapters/sandboxes/checkout-root.js";
import { LIFECYCLE_LIMITS } from "../../../src/server/adapters/sandboxes/lifecycle.js";
import { type SandboxManager, SandboxRefusal } from "../../../src/server/adapters/sandboxes/manager.js";
import { startSandboxManager } from "../../../src/server/adapters/sandboxes/start.js";
import { createServerApp, type ServerApp } from "../../../src/server/app.js";
import { ephemeralSecretBox } from "../../../src/server/domain/secrets/index.js";
import { applySeed } from "../../../src/server/domain/seed/apply-seed.js";
import { SeedDocumentSchema } from "../../../src/server/domain/seed/schema.js";
import type { Store } from "../../../src/server/store/store.js";
import { sandboxImage, startListener } from "../../helpers/sandbox-drivers.js";
import { ACTIVATION_SEED, FIXTURES } from "../../helpers/serve.js";
import { openTestStore } from "../../helpers/test-store.js";

const ADMIN = "manager-test-admin-token";
// A token shape the secret detectors know, printed by a pre_clone command: it must be recorded redacted.
const TOKEN_LIKE = `ghp_${"Zy9Xw8Vu7T".repeat(3)}abcdef`;
const HOUR = 60 * 60 * 1000;

describe("the sandbox manager (docker driver, injected clock)", () => {
  const tmp = mkdtempSync(join(tmpdir(), "baton-sandbox-manager-"));
  const snapshot = `baton-sandbox-test:snapshot-${randomBytes(4).toString("hex")}`;
  let clock = Date.parse("2026-01-05T09:00:00Z");
  let db: Store;
  let manager: SandboxManager;
  let app: ServerApp;
  let ops: Awaited<ReturnType<typeof startListener>>;

  const checkoutWith = (batonrc: unknown) => {
    const dir = mkdtempSync(join(tmp, "checkout-"));
    cpSync(join(FIXTURES, "repos", "acme-api"), dir, { recursive: true });
    if (batonrc !== undefined) writeFileSync(join(dir, ".batonrc.json"), JSON.stringify(batonrc));
    return dir;
  };
  const admin = (method: string, path: string, body?: unknown) =>
    app.handle(
      new Request(`http://service.test${path}`, {
        method,
        headers: { "baton-admin-token": ADMIN, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
  const containerRunning = (ref: string) =>
    execFileSync("docker", ["inspect", "-f", "{{.State.Running}}", ref], { encoding: "utf8" }).trim() ===
    "true";

  const box = ephemeralSecretBox();
  beforeAll(async () => {
    execFileSync("docker", ["tag", sandboxImage(), snapshot]);
    db = await openTestStore(tmp);
    await applySeed(
      db,
      SeedDocumentSchema.parse(JSON.parse(readFileSync(ACTIVATION_SEED, "utf8"))),
      new Date(clock),
      box,
    );
    ops = await startListener("ops");
    const logger = createLogger({ BATON_LOG_LEVEL: "error" }, "test");
    manager = await startSandboxManager({
      driver: "docker",
      ops: { host: "127.0.0.1", port: ops.port },
      db,
      logger,
      env: process.env,
      now: () => new Date(clock),
      timers: false,
      checkoutRoot: checkCheckoutRoot(tmp, []),
    });
    app = createServerApp({
      db,
      logger,
      secretBox: box,
      adminToken: ADMIN,
      now: () => new Date(clock),
      sandboxes: { current: manager },
    });
  });

  afterAll(async () => {
    await app?.stop();
    await manager?.close();
    await db?.close();
    ops?.server.close();
    execFileSync("docker", ["rmi", snapshot], { stdio: "ignore" });
    rmSync(tmp, { recursive: true, force: true });
  });

  it("applies .batonrc.json at creation: snapshot_name, sandbox.env, pre_clone (sanitised); post_clone only recorded", async () => {
    const checkout = checkoutWith({
      sandbox: { snapshot_name: snapshot, env: { API_BASE_URL: "http://localhost:3000" } },
      pre_clone: [`echo pre-clone ran; echo ${TOKEN_LIKE}; touch /home/agent/pre-clone-marker`],
      post_clone: ["touch /home/agent/post-clone-marker"],
    });
    const response = await admin("POST", "/admin/v1/sandboxes", {
      workspaceId: "ws_acme",
      engagementId: "eng-rc",
      repository: "acme/api",
      checkout,
    });
    expect(response.status).toBe(201);
    const body = (await response.json()) as {
      sandboxId: string;
      sandbox: { image: string; preClone: { output: string; exitCode: number }[]; postClone: string[] };
      env: Record<string, string>;
    };
    expect(body.sandbox.image).toBe(snapshot);
    expect(body.sandbox.preClone).toHaveLength(1);
    expect(body.sandbox.preClone[0]!.exitCode).toBe(0);
    expect(body.sandbox.preClone[0]!.output).toContain("pre-clone ran");
    expect(JSON.stringify(body)).not.toContain(TOKEN_LIKE);
    expect(body.sandbox.postClone).toEqual(["touch /home/agent/post-clone-marker"]);
    const owner = { workspaceId: "ws_acme", engagementId: "eng-rc" };
    const seen = await manager.exec(
      body.sandboxId,
      owner,
      ["bash", "-c", 'echo "$API_BASE_URL"; ls ~; echo "$PAYMENTS_KEY" | cut -c1-13'],
      { timeoutMs: 20_000 },
    );
    expect(seen.stdout.split("\n")).toEqual([
      "http://localhost:3000",
      "checkouts",
      "pre-clone-marker", // pre_clone ran in the box; post-clone-marker is absent: post_clone never runs
      "baton-secret-", // the repository's secret arrives as its placeholder, never its value
      "",
    ]);
  });

  it("refuses a .batonrc.json with lint errors, naming each key, and makes no box", async () => {
    const before = (await manager.list()).length;
    const response = await admin("POST", "/admin/v1/sandboxes", {
      workspaceId: "ws_acme",
      engagementId: "eng-lint",
      repository: "acme/api",
      checkout: checkoutWith({ sandbox: { env: { "not-a-name": "x", GH: TOKEN_LIKE } }, setup: ["x"] }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; reason: string };
    expect(body.error).toBe("invalid_batonrc");
    for (const key of ["sandbox.env.not-a-name", "setup"]) expect(body.reason).toContain(key);
    expect(body.reason).not.toContain(TOKEN_LIKE);
    expect(await manager.list()).toHaveLength(before);
  });

  it("keeps the engagement's pinned image when a lost sandbox is recreated", async () => {
    const owner = { workspaceId: "ws_acme", engagementId: "eng-pin" };
    const first = await manager.provision({
      ...owner,
      repository: "acme/api",
      checkout: checkoutWith({ sandbox: { snapshot_name: snapshot } }),
    });
    expect(first.box.image).toBe(snapshot);
    execFileSync("docker", ["rm", "-f", first.box.ref!], { stdio: "ignore" }); // the box is lost
    // The repository's configuration changed since: the pinned image still wins.
    const second = await manager.provision({ ...owner, repository: "acme/api", checkout: checkoutWith({}) });
    expect(second.reused).toBe(false);
    expect(second.box.sandboxId).not.toBe(first.box.sandboxId);
    expect(second.box.image).toBe(snapshot);
    // A follow-up while the box exists reuses it.
    const third = await manager.provision({ ...owner });
    expect(third).toMatchObject({ reused: true, box: { sandboxId: second.box.sandboxId, image: snapshot } });
  });

  it("checks ownership: a sandbox of another engagement can be neither reused nor deleted", async () => {
    const mine = await manager.provision({ workspaceId: "ws_acme", engagementId: "eng-own-a" });
    const other = { workspaceId: "ws_acme", engagementId: "eng-own-b" };
    await expect(manager.provision({ ...other, sandboxId: mine.box.sandboxId })).rejects.toBeInstanceOf(
      SandboxRefusal,
    );
    const reuse = await admin("POST", "/admin/v1/sandboxes", { ...other, sandboxId: mine.box.sandboxId });
    expect(reuse.status).toBe(404);
    const del = await admin(
      "DELETE",
      `/admin/v1/sandboxes/${mine.box.sandboxId}?workspaceId=ws_acme&engagementId=eng-own-b`,
    );
    expect(del.status).toBe(404);
    const otherWorkspace = await admin(
      "DELETE",
      `/admin/v1/sandboxes/${mine.box.sandboxId}?workspaceId=ws_norollout&engagementId=eng-own-a`,
    );
    expect(otherWorkspace.status).toBe(404);
    expect(containerRunning(mine.box.ref!)).toBe(true);
    expect((await manager.show(mine.box.sandboxId))!.state).toBe("running");
    const mineDel = await admin(
      "DELETE",
      `/admin/v1/sandboxes/${mine.box.sandboxId}?workspaceId=ws_acme&engagementId=eng-own-a`,
    );
    expect(mineDel.status).toBe(200);
    expect((await manager.show(mine.box.sandboxId))!.state).toBe("deleted");
  });

  it("runs every transition of section 3 on the injected clock, recorded and visible through the admin API", async () => {
    const owner = { workspaceId: "ws_acme", engagementId: "eng-life" };
    const { box } = await manager.provision(owner);
    const id = box.sandboxId;
    const sweep = async (kind: "sweep" | "cleanup") => {
      const response = await admin("POST", "/admin/v1/sandbox-sweeps", { kind });
      expect(response.status).toBe(200);
      const { transitions } = (await response.json()) as {
        transitions: { sandboxId: string; transition: { to: string } }[];
      };
      return transitions.filter((t) => t.sandboxId === id).map((t) => t.transition.to);
    };

    clock += LIFECYCLE_LIMITS.idleStopMs - 1000;
    expect(await sweep("sweep")).toEqual([]); // not yet two hours idle
    clock += 1000;
    expect(await sweep("sweep")).toEqual(["stopped"]); // running → stopped after 2 hours idle
    expect(containerRunning(box.ref!)).toBe(false);

    // Activity (a command) on a stopped box starts it again.
    expect((await manager.exec(id, owner, ["true"], { timeoutMs: 10_000 })).exitCode).toBe(0);
    expect((await manager.show(id))!.state).toBe("running");

    // Work finishes → stopped; one hour later → archived.
    await admin("POST", `/admin/v1/sandboxes/${id}/events`, { ...owner, event: "work_finished" });
    clock += LIFECYCLE_LIMITS.archiveAfterStopMs - 1000;
    expect(await sweep("sweep")).toEqual([]);
    clock += 1000;
    expect(await sweep("sweep")).toEqual(["archived"]);

    // Archived → eligible for deletion after 30 days without activity (daily cleanup), then deleted.
    clock += LIFECYCLE_LIMITS.deletionAfterInactiveMs - 3 * HOUR;
    expect(await sweep("cleanup")).toEqual([]);
    clock += 3 * HOUR;
    expect(await sweep("cleanup")).toEqual(["eligible_for_deletion"]);
    expect(await sweep("cleanup")).toEqual(["deleted"]);
    expect(
      execFileSync("docker", ["ps", "-aq", "--filter", `id=${box.ref}`], { encoding: "utf8" }).trim(),
    ).toBe("");

    const shown = (await (await admin("GET", `/admin/v1/sandboxes/${id}`)).json()) as {
      transitions: { from: string | null; to: string; reason: string }[];
    };
    expect(shown.transitions.map((t) => `${t.from ?? "-"}→${t.to}:${t.reason}`)).toEqual([
      "-→running:created",
      "running→stopped:idle",
      "stopped→running:activity",
      "running→stopped:work_finished",
      "stopped→archived:stop_elapsed",
      "archived→eligible_for_deletion:inactive",
      "eligible_for_deletion→deleted:cleanup",
    ]);
  });

  it("archives at once on a terminal cancellation", async () => {
    const owner = { workspaceId: "ws_acme", engagementId: "eng-cancel" };
    const { box } = await manager.provision(owner);
    const response = await admin("POST", `/admin/v1/sandboxes/${box.sandboxId}/events`, {
      ...owner,
      event: "cancelled",
    });
    expect(((await response.json()) as { transition: unknown }).transition).toEqual({
      from: "running",
      to: "archived",
      reason: "cancelled",
    });
    expect(containerRunning(box.ref!)).toBe(false);
  });
});
