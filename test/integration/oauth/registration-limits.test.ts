// Issue 35 A.5: dynamic client registration was unbounded (60 anonymous registrations in 0.2 s, kept for ever).
// Now: a budget per source address, a cap on the clients held, and an expiry for a client never authorized.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashCredential } from "../../../src/server/primitives/tokens.js";
import {
  DEFAULT_REGISTRATION_LIMITS,
  UNUSED_CLIENT_LIFETIME_MS,
} from "../../../src/server/surfaces/oauth/registration-limits.js";
import { OAUTH_PATHS } from "../../../src/server/surfaces/oauth/wire.js";
import { type OAuthWorld, startOAuthWorld } from "./harness.js";

const NATIVE = {
  application_type: "native",
  token_endpoint_auth_method: "none",
  redirect_uris: ["http://127.0.0.1/callback"],
};

describe("dynamic client registration is bounded", () => {
  let world: OAuthWorld;
  let small: OAuthWorld;
  beforeAll(async () => {
    [world, small] = await Promise.all([startOAuthWorld(), startOAuthWorld()]);
    // A cap of 3 clients (--oauth-max-clients 3) on the second world: the harness composes it in process.
    small.app.deps.oauthRegistrationLimits = { ...DEFAULT_REGISTRATION_LIMITS, maxClients: 3 };
  });
  afterAll(async () => {
    await Promise.all([world?.close(), small?.close()]);
  });

  const register = (target: OAuthWorld) =>
    fetch(`${target.url}${OAUTH_PATHS.registration}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(NATIVE),
    });
  const expiryOf = async (target: OAuthWorld, clientId: string) =>
    (
      await target.db.get<{ expires_at_ms: number | null }>(
        "SELECT expires_at_ms FROM oauth_models WHERE model = 'Client' AND id_hash = ?",
        [hashCredential(clientId)],
      )
    )?.expires_at_ms;

  it("one source address gets 30 registrations a minute, then 429 with Retry-After naming why", async () => {
    const limit = DEFAULT_REGISTRATION_LIMITS.perSourcePerMinute;
    const answers = await Promise.all(Array.from({ length: limit + 5 }, () => register(world)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(5);
    const refused = answers.find((a) => a.status === 429)!;
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({
      error: "too_many_requests",
      error_description: expect.stringContaining(`${limit} client registrations a minute from this address`),
    });
  });

  it("a client never authorized expires 24 hours after registering; its first grant keeps it", async () => {
    const before = Date.now();
    const used = (await (await register(small)).json()) as { client_id: string };
    expect(Number(await expiryOf(small, used.client_id))).toBeGreaterThanOrEqual(
      before + UNUSED_CLIENT_LIFETIME_MS,
    );
    const signIn = await small.signInFor(`${small.url}/v1`, undefined, used.client_id);
    expect(signIn.status).toBe(200);
    expect(await expiryOf(small, used.client_id)).toBeNull();
  });

  it("when the cap is reached registration answers 403 registration_full; clients past their 24 h are swept to make room", async () => {
    // The first test of this world left one kept client; two more fill the cap of 3.
    const kept = [];
    for (let i = await countClients(small); i < 3; i++) kept.push(await register(small));
    expect(kept.every((a) => a.status === 201)).toBe(true);
    const full = await register(small);
    expect(full.status).toBe(403);
    expect(await full.json()).toMatchObject({
      error: "registration_full",
      error_description: expect.stringContaining("--oauth-max-clients"),
    });
    // A day passes for one never-authorized client (its stored expiry moved into the past): it is swept, and a
    // new registration takes its place; an authorized client is never swept.
    const unused = (await kept[0]!.json()) as { client_id: string };
    await small.db.run("UPDATE oauth_models SET expires_at_ms = ? WHERE model = 'Client' AND id_hash = ?", [
      Date.now() - 1,
      hashCredential(unused.client_id),
    ]);
    expect((await register(small)).status).toBe(201);
    expect(await expiryOf(small, unused.client_id)).toBeUndefined();
    expect(await countClients(small)).toBe(3);
  });

  const countClients = async (target: OAuthWorld) =>
    Number(
      (await target.db.get<{ n: number }>("SELECT COUNT(*) AS n FROM oauth_models WHERE model = 'Client'"))
        ?.n,
    );
});
