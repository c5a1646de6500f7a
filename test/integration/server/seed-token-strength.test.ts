// Issue 37 A2: seed member tokens follow the strength rule of created ones unless the service listens on loopback
// only. fixtures/seeds/api.json holds guessable tokens (btn_owner-acme-0000000000000000): `baton serve` with it on
// a listener other machines reach exits 1 naming the member and the fix, before it opens the store; on loopback
// it starts. Real `baton serve` processes, the built CLI.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runBaton } from "../../helpers/cli.js";
import { FIXTURES, killLeftoverServes, type ServeHandle, startServe } from "../../helpers/serve.js";

const API_SEED = join(FIXTURES, "seeds", "api.json");
let dir: string;
let open: ServeHandle | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "baton-seed-strength-"));
});
afterEach(async () => {
  await open?.stop();
  open = undefined;
  await killLeftoverServes();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a seed with weak member tokens off loopback is refused at start", () => {
  it.each([
    ["--host 0.0.0.0", ["--host", "0.0.0.0", "--port", "0"]],
    ["--ops-listen 0.0.0.0:0", ["--port", "0", "--ops-listen", "0.0.0.0:0"]],
  ])("%s: exit 1 naming the member and the fix; nothing is stored", async (exposed, args) => {
    const db = join(dir, `refused-${args.join("").replace(/\W/g, "")}.sqlite`);
    const run = await runBaton(["serve", ...args, "--db", db, "--seed", API_SEED], {
      env: { BATON_ADMIN_TOKEN: "", BATON_PROXY_TOKEN: "" },
      timeout: 60_000,
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`seed ${API_SEED}: the token of owner@acme.test in ws_acme is too weak`);
    expect(run.stderr).toContain(exposed.split(" ")[0]);
    expect(run.stderr).toContain("43 random base64url characters");
    expect(run.stderr).toContain("listen on 127.0.0.1 only");
    // The message names the member, never the token.
    expect(run.stderr).not.toContain("owner-acme-0000");
    expect(run.stdout).not.toContain("listening");
    expect(existsSync(db)).toBe(false);
  });

  it("on loopback the same seed starts, and its tokens work", async () => {
    open = await startServe({ seed: API_SEED });
    const me = await fetch(`${open.url}/v1/me`, {
      headers: { authorization: "Bearer btn_owner-acme-0000000000000000" },
    });
    expect(me.status).toBe(200);
  });
});
