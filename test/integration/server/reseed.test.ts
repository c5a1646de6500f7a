// Restarting `baton serve --seed <file>` (a real child process, same SQLite file) must never lose what the
// service created or changed since: a secret owners added with PUT .../secrets/:name, a secret they rotated, a
// repository an admin disconnected. A changed seed changes exactly the fields it changed, and removes what it
// set and no longer lists only when nothing else changed it since.

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOrCreateSecretKey, secretScope } from "../../../src/server/domain/secrets/index.js";
import {
  ADMIN_PATHS,
  CAPABILITY_PATHS,
  HEADERS,
  type Operation,
  PATHS,
} from "../../../src/transport/wire.js";
import {
  createSandbox,
  killLeftoverServes,
  LOUD,
  type ServeHandle,
  startServe,
} from "../../helpers/serve.js";

const OWNER_TOKEN = "btn_reseed-owner-token-0123456789";
const CANARY = {
  seeded: "canary-reseed-seeded-1f2e3d4c-never-print",
  oldKey: "canary-reseed-oldkey-5a6b7c8d-never-print",
  rotatedSeed: "canary-reseed-rotseed-9e8f7a6b-never-print",
  added: "canary-reseed-added-0c1d2e3f-never-print",
  rotated: "canary-reseed-rotated-4b5a6978-never-print",
  rotatedToo: "canary-reseed-rottoo-8796a5b4-never-print",
};

const seed = (version: 1 | 2) => ({
  workspaces: [
    {
      id: "ws_acme",
      name: "Acme",
      rollout: { repositoryEnvironments: true },
      members: [{ email: "owner@acme.test", role: "owner", token: OWNER_TOKEN }],
      repositories: [
        {
          id: "repo_api",
          repository: "acme/api",
          sandboxEnv:
            version === 1
              ? { API_BASE_URL: "http://localhost:3000", LOG_LEVEL: "debug" }
              : { API_BASE_URL: "http://localhost:4000" },
          secrets: [
            {
              name: "DB_PASSWORD",
              value: CANARY.seeded,
              allowedHosts: version === 1 ? ["db.acme.test"] : ["db.acme.test", "replica.acme.test"],
            },
            ...(version === 1
              ? [
                  { name: "OLD_KEY", value: CANARY.oldKey, allowedHosts: ["old.acme.test"] },
                  { name: "ROTATED", value: CANARY.rotatedSeed, allowedHosts: ["rot.acme.test"] },
                ]
              : []),
          ],
        },
        { id: "repo_web", repository: "acme/web", connected: true },
      ],
    },
  ],
});

let dir: string;
let serve: ServeHandle;
const seedFile = (version: 1 | 2) => join(dir, `seed-v${version}.json`);

function rows(sql: string): Promise<Record<string, unknown>[]> {
  return serve.query(sql);
}
/** The secrets with their values opened with the service's key file (beside the store: values are sealed). */
async function secrets(): Promise<Record<string, unknown>[]> {
  const { box } = await loadOrCreateSecretKey(`${serve.dbPath}.key`);
  const found = await rows(
    "SELECT s.id, s.name, s.value_sealed, s.allowed_hosts_json AS hosts FROM secrets s WHERE repository_id = 'repo_api' ORDER BY name",
  );
  return found.map(({ value_sealed, ...row }) => ({
    ...row,
    value: box.open(secretScope("repo_api", String(row.name)), String(value_sealed)),
  }));
}

async function putSecret(name: string, value: string, allowedHosts: string[]): Promise<number> {
  const response = await fetch(`${serve.url}${CAPABILITY_PATHS.secret("ws_acme", "repo_api", name)}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${OWNER_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ value, allowedHosts }),
  });
  await response.arrayBuffer();
  return response.status;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "baton-reseed-"));
  await writeFile(seedFile(1), JSON.stringify(seed(1)));
  await writeFile(seedFile(2), JSON.stringify(seed(2)));
  serve = await startServe({ seed: seedFile(1), dir, env: LOUD });
});
afterAll(async () => {
  await serve?.stop();
  await killLeftoverServes();
  await rm(dir, { recursive: true, force: true });
});

describe("restarting baton serve with --seed", () => {
  it("the same seed keeps secrets owners added or rotated and a repository an admin disconnected", async () => {
    expect(await putSecret("NEW_TOKEN", CANARY.added, ["api.vendor.test"])).toBe(201);
    expect(await putSecret("DB_PASSWORD", CANARY.rotated, ["db.acme.test"])).toBe(200);
    expect(await putSecret("ROTATED", CANARY.rotatedToo, ["rot.acme.test"])).toBe(200);
    const disconnect = await serve.admin(ADMIN_PATHS.disconnectRepository, {
      workspaceId: "ws_acme",
      repository: "acme/web",
    });
    expect(disconnect.status).toBe(200);
    const before = await secrets();
    expect(before.map((s) => s.name)).toEqual(["DB_PASSWORD", "NEW_TOKEN", "OLD_KEY", "ROTATED"]);

    expect(await serve.stop()).toBe(0);
    await serve.restart({}, { seed: seedFile(1) });

    expect(await secrets()).toEqual(before);
    expect(before.find((s) => s.name === "DB_PASSWORD")).toMatchObject({ value: CANARY.rotated });
    expect(await rows("SELECT connected FROM repositories WHERE id = 'repo_web'")).toEqual([
      { connected: 0 },
    ]);

    // An activation after the restart hands over the secret the owner added.
    const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng-reseed" });
    const headers = {
      [HEADERS.authorization]: `Bearer ${sandbox.env.BATON_TURN_TOKEN}`,
      [HEADERS.sandboxLease]: sandbox.env.BATON_SANDBOX_LEASE!,
    };
    const started = await fetch(`${serve.opsUrl}${PATHS.operations}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json", [HEADERS.idempotencyKey]: "reseed-1" },
      body: JSON.stringify({ kind: "env.activate", repository: "acme/api" }),
    });
    const op = (await started.json()) as Operation;
    expect(op.state).toBe("succeeded");
    expect(op.result?.variables.map((v) => v.name)).toContain("NEW_TOKEN");
  });

  it("a changed seed writes only the fields it changed and removes what it set and dropped, unless changed since", async () => {
    const before = new Map((await secrets()).map((s) => [s.name, s]));
    expect(await serve.stop()).toBe(0);
    await serve.restart({}, { seed: seedFile(2) });

    const after = new Map((await secrets()).map((s) => [s.name, s]));
    // DB_PASSWORD: the seed changed its hosts (applied); its value in the seed did not change, so the owner's
    // rotation stays. Same id, so the same placeholder.
    expect(after.get("DB_PASSWORD")).toEqual({
      ...before.get("DB_PASSWORD"),
      hosts: JSON.stringify(["db.acme.test", "replica.acme.test"]),
    });
    expect(after.get("NEW_TOKEN")).toEqual(before.get("NEW_TOKEN"));
    // OLD_KEY left the seed untouched since: removed. ROTATED left the seed but an owner rotated it: kept.
    expect(after.has("OLD_KEY")).toBe(false);
    expect(after.get("ROTATED")).toEqual(before.get("ROTATED"));
    expect(serve.stderr()).toContain("secret ROTATED of acme/api");
    expect(await rows("SELECT name, value FROM sandbox_env WHERE repository_id = 'repo_api'")).toEqual([
      { name: "API_BASE_URL", value: "http://localhost:4000" },
    ]);
    // `connected: true` was in both seeds: the admin's disconnection stands.
    expect(await rows("SELECT connected FROM repositories WHERE id = 'repo_web'")).toEqual([
      { connected: 0 },
    ]);
    // No secret value in anything the service printed (logs at debug level).
    for (const canary of Object.values(CANARY)) expect(serve.output()).not.toContain(canary);
  });
});
