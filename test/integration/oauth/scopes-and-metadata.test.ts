// Issue 35 B.11 and B.12 (metadata part): the MCP SDK 1.x registers with the scope the protected-resource metadata
// names ("baton"); the authorization server must accept it and advertise exactly what it accepts and issues.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OAuthWorld, startOAuthWorld } from "./harness.js";

describe("scopes and metadata as third-party clients read them", () => {
  let world: OAuthWorld;
  beforeAll(async () => {
    world = await startOAuthWorld();
  });
  afterAll(async () => {
    await world?.close();
  });
  const register = (scope: string) =>
    fetch(`${world.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "sdk",
        application_type: "native",
        token_endpoint_auth_method: "none",
        redirect_uris: ["http://127.0.0.1/callback"],
        grant_types: ["authorization_code", "refresh_token"],
        scope,
      }),
    });

  it("registers a client with scope baton, the scope the protected-resource metadata advertises (the MCP SDK 1.x does)", async () => {
    const resource = (await (
      await fetch(`${world.url}/.well-known/oauth-protected-resource/v1/mcp`)
    ).json()) as { scopes_supported: string[] };
    const answer = await register(resource.scopes_supported.join(" "));
    expect(answer.status).toBe(201);
  });

  it("refuses to register scope openid, which it does not offer", async () => {
    const answer = await register("openid baton");
    expect(answer.status).toBe(400);
    expect(((await answer.json()) as { error: string }).error).toBe("invalid_client_metadata");
  });

  it("advertises in scopes_supported exactly what it accepts, and no ID-token or OpenID fields", async () => {
    const meta = (await (
      await fetch(`${world.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown>;
    expect(meta.scopes_supported).toEqual(["baton"]);
    expect(meta.grant_types_supported).toEqual(["authorization_code", "refresh_token"]);
    for (const member of [
      "claims_supported",
      "id_token_signing_alg_values_supported",
      "subject_types_supported",
      "userinfo_endpoint",
    ])
      expect(meta[member], member).toBeUndefined();
  });
});
