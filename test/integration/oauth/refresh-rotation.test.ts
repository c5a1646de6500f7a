// Issue 35 B.12 (server side): refresh tokens are issued, rotated on every use, and a reused one ends the whole
// chain (RFC 9700 section 4.14.2). On the old code no refresh token was issued at all (issueRefreshToken: false).
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type OAuthWorld, startOAuthWorld } from "./harness.js";

describe("refresh tokens", () => {
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld();
  });
  afterAll(async () => {
    await world?.close();
  });
  const refresh = (clientId: string, token: string) =>
    fetch(`${world.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: token, client_id: clientId }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, string> }));
  const me = (token: string) =>
    fetch(`${world.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);

  it("rotates the refresh token on every use; a reused one revokes the whole chain", async () => {
    const signIn = await world.signInFor(`${world.url}/v1`);
    expect(signIn.status).toBe(200);
    const first = String(signIn.body.refresh_token);
    expect(first.length).toBeGreaterThan(10);
    const id = signIn.clientId;
    const second = await refresh(id, first);
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).toBeDefined();
    expect(second.body.refresh_token).not.toBe(first);
    expect(await me(second.body.access_token!)).toBe(200);
    const reused = await refresh(id, first);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe("invalid_grant");
    // The whole chain is gone: the rotated refresh token and its access token no longer work.
    expect((await refresh(id, second.body.refresh_token!)).body.error).toBe("invalid_grant");
    expect(await me(second.body.access_token!)).toBe(401);
  });

  // On PostgreSQL the token requests truly interleave (on SQLite each runs to its end before the next starts).
  it("one refresh token presented several times at once (PostgreSQL): one request wins the rotation and the reuse ends the chain", async () => {
    const world = await startOAuthWorld({ engine: "postgres" });
    onTestFinished(() => world.close());
    const refresh = (clientId: string, token: string) => world.refresh(clientId, token);
    const me = (token: string) =>
      fetch(`${world.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    const signIn = await world.signInFor(`${world.url}/v1`);
    const first = String(signIn.body.refresh_token);
    const answers = await Promise.all(Array.from({ length: 4 }, () => refresh(signIn.clientId, first)));
    // Before the consume was a compare-and-set, every one of them was answered 200 with a chain of its own.
    expect(answers.filter((a) => a.status === 200).length).toBeLessThanOrEqual(1);
    expect(answers.filter((a) => a.body.error === "invalid_grant").length).toBeGreaterThanOrEqual(3);
    for (const answer of answers.filter((a) => a.status === 200)) {
      expect(await me(answer.body.access_token!)).toBe(401);
      expect((await refresh(signIn.clientId, answer.body.refresh_token!)).body.error).toBe("invalid_grant");
    }
  });
});
