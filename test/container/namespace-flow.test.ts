// The agent flow on the namespace driver (bubblewrap on the image's root filesystem in a network namespace),
// for machines without Docker: both repositories activated, new shells inherit the environment, the Dockerfile
// applied, the startup runner's evidence copied out, a capability requested, the disclosure written, and no
// secret value anywhere in the box's files or any output.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";
import { checkCheckoutRoot } from "../../src/server/adapters/sandboxes/checkout-root.js";
import type { SandboxManager } from "../../src/server/adapters/sandboxes/manager.js";
import { startSandboxManager } from "../../src/server/adapters/sandboxes/start.js";
import { createServerApp, type ServerApp } from "../../src/server/app.js";
import { ephemeralSecretBox } from "../../src/server/domain/secrets/index.js";
import { applySeed } from "../../src/server/domain/seed/apply-seed.js";
import { SeedDocumentSchema } from "../../src/server/domain/seed/schema.js";
import type { Store } from "../../src/server/store/store.js";
import { createNodeServer } from "../../src/server/surfaces/http/node-server.js";
import { readTree } from "../helpers/canary.js";
import { ACTIVATION_CANARIES, ACTIVATION_SEED, FIXTURES } from "../helpers/serve.js";
import { openTestStore } from "../helpers/test-store.js";

describe("the agent flow on the namespace driver", () => {
  const tmp = mkdtempSync(join(tmpdir(), "baton-sandbox-nsflow-"));
  const owner = { workspaceId: "ws_acme", engagementId: "eng-ns" };
  const outputs: string[] = [];
  let db: Store;
  let app: ServerApp;
  let server: Server;
  let manager: SandboxManager;
  let sandboxId: string;
  let boxRef: string;

  const run = async (argv: string[], cwd = "/home/agent/checkouts/acme/api") => {
    const result = await manager.exec(sandboxId, owner, argv, { timeoutMs: 60_000, cwd });
    outputs.push(result.stdout, result.stderr);
    return result;
  };

  const box = ephemeralSecretBox();
  beforeAll(async () => {
    db = await openTestStore(tmp);
    await applySeed(
      db,
      SeedDocumentSchema.parse(JSON.parse(readFileSync(ACTIVATION_SEED, "utf8"))),
      new Date(),
      box,
    );
    const logger = createLogger({ BATON_LOG_LEVEL: "error" }, "test");
    const sandboxes: { current?: SandboxManager } = {};
    app = createServerApp({ db, logger, sandboxes, secretBox: box });
    // The forwarders' target is the sandbox listener, as in baton serve.
    server = createNodeServer(app.listeners.sandbox.fetch);
    await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready));
    const address = server.address();
    await app.start();
    manager = await startSandboxManager({
      driver: "namespace",
      ops: { host: "127.0.0.1", port: typeof address === "object" && address ? address.port : 0 },
      db,
      logger,
      env: process.env,
      timers: false,
      checkoutRoot: checkCheckoutRoot(join(FIXTURES, "repos"), []),
    });
    sandboxes.current = manager;
    const made = await manager.provision({
      ...owner,
      repository: "acme/api",
      checkout: join(FIXTURES, "repos", "acme-api"),
      extraCheckouts: { "acme/web": join(FIXTURES, "repos", "acme-web") },
    });
    sandboxId = made.box.sandboxId;
    boxRef = made.box.ref!;
  });

  afterAll(async () => {
    await app?.stop();
    await manager?.close();
    server?.closeAllConnections();
    server?.close();
    await db?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it("activates both repositories inside the box", async () => {
    for (const repository of ["acme/api", "acme/web"]) {
      const result = await run(["baton", "env", "activate", repository, "--json"]);
      expect({ repository, exitCode: result.exitCode }).toEqual({ repository, exitCode: 0 });
    }
  });

  it.each([
    ["a login shell", ["env", "-u", "BASH_ENV", "bash", "-lc"]],
    ["bash -c", ["bash", "-c"]],
    ["an interactive sh", ["sh", "-ic"]],
  ])("%s inherits the activated environment", async (_what, shell) => {
    const result = await run([...shell, 'echo "$LOG_LEVEL|$REPO_WEB__PAYMENTS_KEY"']);
    const [logLevel, placeholder] = result.stdout.trim().split("\n").at(-1)!.split("|");
    expect(logLevel).toBe("debug");
    expect(placeholder).toMatch(/^baton-secret-sec_[0-9a-f]{32}$/);
  });

  it("applies the Dockerfile, runs the startup runner, requests a capability and discloses", async () => {
    expect((await run(["baton", "dockerfile", "apply", "acme/api", "--json"])).exitCode).toBe(0);
    const startup = await run(["bash", "-c", "node ~/.baton/runner/baton-runner.cjs --repo acme/api"]);
    expect(JSON.parse(startup.stdout)).toMatchObject({ outcome: "succeeded", exitCode: 0 });
    const request = await run([
      "baton",
      "env",
      "request-capability",
      "--repo",
      "acme/api",
      "--capability",
      "registry_access",
      "--target",
      "https://npm.acme.test/pkg",
      "--reason",
      "npm install needs the private registry",
    ]);
    expect(request.exitCode).toBe(0);
    const disclosure = await run(["baton", "disclose", "acme/api"]);
    expect(disclosure.stdout).toContain("envv_api_1");
    await manager.copyOut(sandboxId, owner, "/home/agent/.baton/evidence", join(tmp, "out"));
    const evidence = JSON.parse(readFileSync(join(tmp, "out", "evidence", "acme__api.json"), "utf8"));
    expect(evidence).toEqual(JSON.parse(startup.stdout));
  });

  it("holds no secret value in the box's files or any output", async () => {
    const files = await readTree(join(boxRef, "home"));
    expect(files).toContain("baton-secret-sec_");
    for (const text of [files, ...outputs])
      for (const canary of ACTIVATION_CANARIES) expect(text).not.toContain(canary);
  });
});
