// The tokens page in the real `baton serve` binary: mounted on the public listener (behind sign-in, with the
// page headers), absent from the admin and sandbox listeners.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGE_PATHS } from "../../../src/server/surfaces/pages/wire.js";
import { killLeftoverServes, type ServeHandle, startServe } from "../../helpers/serve.js";
import { API_SEED } from "../api/harness.js";

let serve: ServeHandle;
beforeAll(async () => {
  serve = await startServe({ seed: API_SEED });
});
afterAll(async () => {
  await serve?.stop();
  await killLeftoverServes();
});

describe("baton serve", () => {
  it("serves the tokens page on the public listener: without a session, 303 to sign-in with the page headers", async () => {
    const answer = await fetch(`${serve.url}${PAGE_PATHS.tokens}`, { redirect: "manual" });
    expect(answer.status).toBe(303);
    expect(new URL(answer.headers.get("location")!, serve.url).pathname).toBe(PAGE_PATHS.signIn);
    expect(answer.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(answer.headers.get("cache-control")).toBe("no-store");
  });

  it.each(["adminUrl", "opsUrl"] as const)("the %s listener does not serve it (404)", async (listener) => {
    const answer = await fetch(`${serve[listener]}${PAGE_PATHS.tokens}`, { redirect: "manual" });
    expect(answer.status).toBe(404);
  });
});
