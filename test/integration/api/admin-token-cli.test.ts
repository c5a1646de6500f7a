// `baton admin token create` against a real `baton serve`: the token alone on stdout (shown this once), what it
// is on stderr, --json, and refusals that say what to fix.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { runBaton } from "../../helpers/cli.js";
import { killLeftoverServes, type ServeHandle, startServe, TEST_ADMIN_TOKEN } from "../../helpers/serve.js";
import { API_SEED } from "./harness.js";
import { createSocketClient } from "./socket-client.js";

let serve: ServeHandle;
beforeAll(async () => {
  serve = await startServe({ seed: API_SEED });
});
afterAll(async () => {
  await serve?.stop();
  await killLeftoverServes();
});

const create = (args: string[], env: Record<string, string> = { BATON_ADMIN_TOKEN: TEST_ADMIN_TOKEN }) =>
  runBaton(["admin", "token", "create", "--url", serve.adminUrl, ...args], { env });

describe("baton admin token create", () => {
  it("prints the new token alone on stdout, once; it acts as the member", async () => {
    const run = await create(["--email", "dev@acme.test", "--name", "laptop", "--lifetime", "365"]);
    expect(run.exitCode, run.stderr).toBe(0);
    const token = run.stdout.trim();
    expect(token).toMatch(/^btn_[A-Za-z0-9_-]{43}$/);
    expect(run.stdout).toBe(`${token}\n`);
    expect(run.stderr).toMatch(
      new RegExp(
        `^Token "laptop" for dev@acme\\.test \\(…${token.slice(-4)}\\), expires \\S+\\. It is shown only now`,
      ),
    );
    expect(run.stderr).not.toContain(token);
    const client = createSocketClient(serve.url);
    try {
      const me = await client.call("GET", API_PATHS.me, { token });
      expect(me.body.user.name).toBe("Dev Eloper");
    } finally {
      client.close();
    }
  });

  it("--json prints the service's answer; the default lifetime is 90 days", async () => {
    const run = await create(["--email", "owner@acme.test", "--name", "ci", "--json"]);
    expect(run.exitCode, run.stderr).toBe(0);
    const answer = JSON.parse(run.stdout);
    expect(answer).toMatchObject({
      name: "ci",
      email: "owner@acme.test",
      token: expect.stringMatching(/^btn_/),
    });
    expect(Date.parse(answer.expiresAt) - Date.parse(answer.createdAt)).toBe(90 * 86_400_000);
  });

  it.each([
    [
      "a lifetime other than 30, 90 or 365",
      ["--email", "dev@acme.test", "--name", "x", "--lifetime", "60"],
      /--lifetime.*must be 30, 90 or 365/,
    ],
    ["no --name", ["--email", "dev@acme.test"], /--name/],
    [
      "someone who is no member",
      ["--email", "nobody@acme.test", "--name", "x"],
      /404 not_found.*no member with that e-mail/,
    ],
  ])("refuses %s (exit 1, saying what to fix)", async (_case, args, message) => {
    const run = await create(args);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(message);
  });

  it("without BATON_ADMIN_TOKEN it says to export it", async () => {
    const run = await create(["--email", "dev@acme.test", "--name", "x"], {});
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/BATON_ADMIN_TOKEN is not set/);
  });
});
