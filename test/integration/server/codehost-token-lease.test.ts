// Issue 24 point 4: "Agents push through the egress proxy with the installation token as a secret placeholder
// approved for the code host only, so the token never enters the box." The lease route and the box's variables
// in process (codehost-world.ts says what is a stand-in and why). The canary must reach the proxy's lease answer
// and nothing else.
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import {
  LeasePolicyResponseSchema,
  PROXY_INTERNAL_PATHS,
  PROXY_TOKEN_HEADER,
} from "../../../src/proxy/lease/wire.js";
import { setInstallationSuspended } from "../../../src/server/adapters/codehost/installations.js";
import { createPushAccessLookup } from "../../../src/server/adapters/codehost/push-access.js";
import { createManagerSandboxes } from "../../../src/server/adapters/sandboxes/turn-sandboxes.js";
import { rememberActivatedRepository } from "../../../src/server/domain/operations/engagement-state.js";
import {
  CANARY_TOKEN,
  DESTINATIONS,
  PROXY_TOKEN,
  SEED_CANARY,
  startWorld,
  stubApp,
  WEB_URL,
  type World,
} from "./codehost-world.js";

async function leaseOf(world: World, lease: string) {
  const response = await world.app.http.request(PROXY_INTERNAL_PATHS.lease, {
    method: "POST",
    headers: { "content-type": "application/json", [PROXY_TOKEN_HEADER]: PROXY_TOKEN },
    body: JSON.stringify({ lease }),
  });
  expect(response.status).toBe(200);
  return LeasePolicyResponseSchema.parse(await response.json());
}

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("the installation token behind a placeholder", () => {
  it("the lease answer carries the token for the proxy, approved for the App's token destinations only", async () => {
    world = await startWorld({ app: true });
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-push",
      repository: "acme/api",
    });
    const policy = await leaseOf(world, made.issued.lease);
    const credentialId = world.installation.credentialId;
    expect(policy.secrets).toContainEqual({
      id: credentialId,
      placeholder: `baton-secret-${credentialId}`,
      value: CANARY_TOKEN,
      destinations: DESTINATIONS,
    });
    expect(world.mints).toEqual(["4242"]);
  });

  it("the box's variables carry the placeholder and git's header with it, never the token", async () => {
    world = await startWorld({ app: true });
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-push",
      repository: "acme/api",
    });
    const placeholder = `baton-secret-${world.installation.credentialId}`;
    expect(made.env.BATON_CODEHOST_TOKEN).toBe(placeholder);
    expect(made.env.GIT_CONFIG_KEY_0).toBe(`http.${WEB_URL}/.extraHeader`);
    expect(Buffer.from(made.env.GIT_CONFIG_VALUE_0!.split(" ").at(-1)!, "base64").toString()).toBe(
      `x-access-token:${placeholder}`,
    );
    await leaseOf(world, made.issued.lease);
    expect(JSON.stringify(world.created)).not.toContain(CANARY_TOKEN);
    expect(world.log()).not.toContain(CANARY_TOKEN);
  });

  it("a task's turn clones from the code host's web URL, its git sending the placeholder after the lease's header", async () => {
    world = await startWorld({ app: true });
    const turns = createManagerSandboxes({
      db: world.db,
      manager: () => world!.manager,
      root: join(world.dir, "turns"),
      pushAccess: createPushAccessLookup(world.db, {
        app: stubApp([], null),
        webUrl: WEB_URL,
      }),
      logger: pino({ level: "silent" }),
    });
    const task = { id: "tsk_push", workspaceId: "ws_acme", title: "t", repo: "acme/api", source: "api" };
    const sandbox = await turns.sandboxFor(task, await turns.credentialsFor(task, new Date()));
    expect(sandbox.env).toMatchObject({
      BATON_GIT_URL: `${WEB_URL}/acme/api.git`,
      BATON_CODEHOST_TOKEN: `baton-secret-${world.installation.credentialId}`,
      GIT_CONFIG_COUNT: "2",
      GIT_CONFIG_KEY_1: `http.${WEB_URL}/.extraHeader`,
    });
    // The local code host's lease header stays first and stays a secret of the turn.
    expect(sandbox.secrets.map((s) => s.name)).toContain("GIT_CONFIG_VALUE_0");
    expect(JSON.stringify(sandbox.env)).not.toContain(CANARY_TOKEN);
  });

  it("without an App (the local code host) nothing is minted and the box has no code-host token", async () => {
    world = await startWorld({ app: false });
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-local",
      repository: "acme/api",
    });
    const policy = await leaseOf(world, made.issued.lease);
    expect(policy.secrets.map((s) => s.id)).not.toContain(world.installation.credentialId);
    expect(made.env).not.toHaveProperty("BATON_CODEHOST_TOKEN");
    expect(made.env).not.toHaveProperty("GIT_CONFIG_COUNT");
  });

  it("a token that cannot be minted: the lease still answers with its other secrets, and a warning names the installation", async () => {
    world = await startWorld({ app: true, failure: new Error("the code host answered 502") });
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-fail",
      repository: "acme/api",
    });
    const repo = (await world.db.get(
      "SELECT id FROM repositories WHERE workspace_id = 'ws_acme' AND slug = 'acme/api'",
    )) as {
      id: string;
    };
    await rememberActivatedRepository(world.db, "eng-fail", repo.id);
    const policy = await leaseOf(world, made.issued.lease);
    expect(policy.secrets.map((s) => s.value)).toEqual([SEED_CANARY]);
    const warning = world
      .log()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.level === 40 && line.installationId === "4242");
    expect(warning).toMatchObject({
      credentialId: world.installation.credentialId,
      reason: "the code host answered 502",
    });
  });

  it("a suspended installation gives no token", async () => {
    world = await startWorld({ app: true });
    await setInstallationSuspended(world.db, "4242", true);
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-susp",
      repository: "acme/api",
    });
    const policy = await leaseOf(world, made.issued.lease);
    expect(policy.secrets).toEqual([]);
    expect(world.mints).toEqual([]);
    expect(made.env).not.toHaveProperty("BATON_CODEHOST_TOKEN");
  });

  it("a repository no installation gives (acme/web) gets no token, though the workspace has an installation", async () => {
    world = await startWorld({ app: true });
    const made = await world.manager.provision({
      workspaceId: "ws_acme",
      engagementId: "eng-web",
      repository: "acme/web",
    });
    expect((await leaseOf(world, made.issued.lease)).secrets).toEqual([]);
    expect(made.env).not.toHaveProperty("BATON_CODEHOST_TOKEN");
  });
});
