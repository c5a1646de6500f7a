// `.batonrc.json`'s `sandbox.env` joins the activation overlay (issue 12: "sandbox.env joins the overlay"): its
// names go through the naming rules and its values land in the overlay at the activation's revision, under the
// precedence README "`.batonrc.json`" states: a secret over the service's repository record over the file.
// The box row is what the sandbox manager records when it creates a box from a checkout; it is written here with
// the manager's own store function because only the store matters to activation (test/container runs the same
// rule through real drivers and a real `baton env activate`).
import { afterEach, describe, expect, it } from "vitest";
import { type Overlay, OverlaySchema } from "../../../src/envfile/overlay.js";
import { insertBox } from "../../../src/server/adapters/sandboxes/store.js";
import { type Operation, PATHS } from "../../../src/transport/wire.js";
import { type Credentials, createHarness, type Harness, opsHeaders } from "./harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const recordBox = (h: Harness, creds: Credentials, env: Record<string, string>, atMs: number) =>
  insertBox(h.db, {
    sandboxId: creds.sandboxId,
    workspaceId: "ws_acme",
    engagementId: creds.engagementId,
    driver: "docker",
    boxRef: `box-${creds.sandboxId}`,
    image: "baton-sandbox:test",
    repository: "acme/api",
    state: "running",
    lastActivityAtMs: atMs,
    stateChangedAtMs: atMs,
    createdAtMs: atMs,
    reach: {},
    batonrc: { sandbox: { env } },
  });

async function activate(h: Harness, creds: Credentials, repository: string): Promise<Overlay> {
  const created = (await (await h.start(creds, repository)).json()) as Operation;
  const done = await h.settle(creds, created.id);
  expect(done.state).toBe("succeeded");
  const response = await h.request("GET", PATHS.operationOverlay(done.id), { headers: opsHeaders(creds) });
  return OverlaySchema.parse(await response.json());
}

const variablesOf = (overlay: Overlay, repository: string) =>
  Object.fromEntries(
    overlay.repositories
      .find((r) => r.repository === repository)!
      .variables.map((v) => [v.name, { assigned: v.assigned, value: v.value, source: v.source }]),
  );

describe(".batonrc.json sandbox.env in the activation overlay", () => {
  it("joins the overlay with the naming rules; the repository record wins over the file, a secret over both", async () => {
    harness = await createHarness();
    const creds = await harness.sandbox("ws_acme", "eng-rc-overlay");
    await recordBox(
      harness,
      creds,
      {
        FEATURE_FLAGS: "beta", // only in the file
        LOG_LEVEL: "trace", // the seed's repository record says debug: the record wins
        DATABASE_PASSWORD: "not-this", // a secret of acme/api: the secret's placeholder wins
        STRIPE_KEY: "test-mode", // acme/web's secret, activated later: the later one is qualified
      },
      Date.now(),
    );
    const api = variablesOf(await activate(harness, creds, "acme/api"), "acme/api");
    expect(api.FEATURE_FLAGS).toEqual({ assigned: "FEATURE_FLAGS", value: "beta", source: "sandbox.env" });
    expect(api.LOG_LEVEL).toEqual({ assigned: "LOG_LEVEL", value: "debug", source: "sandbox.env" });
    expect(api.STRIPE_KEY).toEqual({ assigned: "STRIPE_KEY", value: "test-mode", source: "sandbox.env" });
    expect(api.DATABASE_PASSWORD!.source).toBe("secret");
    expect(api.DATABASE_PASSWORD!.value).toMatch(/^baton-secret-sec_[0-9a-f]{32}$/);

    const both = await activate(harness, creds, "acme/web");
    expect(variablesOf(both, "acme/web").STRIPE_KEY).toMatchObject({
      assigned: "REPO_WEB__STRIPE_KEY",
      source: "secret",
    });
  });

  it("a recreated sandbox's .batonrc.json gives its values at the next overlay revision", async () => {
    harness = await createHarness();
    const first = await harness.sandbox("ws_acme", "eng-rc-revision");
    await recordBox(harness, first, { FEATURE_FLAGS: "beta" }, Date.now() - 1000);
    const before = await activate(harness, first, "acme/api");
    expect(variablesOf(before, "acme/api").FEATURE_FLAGS!.value).toBe("beta");

    const second = await harness.sandbox("ws_acme", "eng-rc-revision");
    await recordBox(harness, second, { FEATURE_FLAGS: "gamma" }, Date.now());
    const after = await activate(harness, second, "acme/api");
    expect(after.revision).toBe(before.revision + 1);
    expect(variablesOf(after, "acme/api").FEATURE_FLAGS).toEqual({
      assigned: "FEATURE_FLAGS",
      value: "gamma",
      source: "sandbox.env",
    });
  });

  it("another engagement's .batonrc.json stays out of this one's overlay", async () => {
    harness = await createHarness();
    await recordBox(
      harness,
      await harness.sandbox("ws_acme", "eng-rc-a"),
      { FEATURE_FLAGS: "beta" },
      Date.now(),
    );
    const other = await activate(harness, await harness.sandbox("ws_acme", "eng-rc-b"), "acme/api");
    expect(variablesOf(other, "acme/api").FEATURE_FLAGS).toBeUndefined();
  });
});
