// Issue 35 B.12, the client half: a browser sign-in's access token lasts an hour, and the real `baton` binary
// renews it with the refresh token without the user noticing: before a command when it is about to run out, once
// more when the service refuses it midway, and under a lock so that commands running at once never present a
// rotated refresh token twice (which would end the whole sign-in). The service is the in-process OAuth world (its
// clock can be moved); the sign-in's tokens come from the real browser flow and are planted in a config file as
// `baton login` writes it.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatonRun, runBaton } from "../../helpers/cli.js";
import { type OAuthWorld, startOAuthWorld } from "./harness.js";

const HOUR = 3_600_000;

describe("baton renews a browser sign-in's hour-long access token", () => {
  let world: OAuthWorld;
  let root: string;
  const outputs: string[] = [];
  const secrets: string[] = [];
  beforeAll(async () => {
    world = await startOAuthWorld();
    root = await mkdtemp(join(tmpdir(), "cli-renewal-"));
  });
  afterAll(async () => {
    // Canary: no access or refresh token ever reached the terminal.
    for (const secret of secrets) for (const output of outputs) expect(output).not.toContain(secret);
    await world?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  let homes = 0;
  /** A config folder holding a fresh browser sign-in whose access token runs out `expiresInMs` from now. */
  async function signedInHome(expiresInMs: number) {
    const tokens = await world.signInTokens();
    secrets.push(tokens.accessToken, tokens.refreshToken);
    const home = join(root, `home-${++homes}`);
    const folder = join(home, "config", "baton");
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const now = new Date().toISOString();
    const config = {
      apiUrl: world.url,
      token: tokens.accessToken,
      kind: "signin",
      workspace: null,
      signedInAt: now,
      lastUsedAt: now,
      expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
      refreshToken: tokens.refreshToken,
      clientId: tokens.clientId,
    };
    writeFileSync(join(folder, "config.json"), `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
    return { home, tokens, file: join(folder, "config.json") };
  }
  const saved = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
  async function whoami(home: string): Promise<BatonRun> {
    const run = await runBaton(["whoami", "--json"], {
      stdin: "ignore",
      env: { BATON_API_URL: world.url, XDG_CONFIG_HOME: join(home, "config"), HOME: home },
    });
    outputs.push(run.stdout, run.stderr);
    return run;
  }
  const remember = (file: string) => {
    const now = saved(file);
    secrets.push(now.token!, now.refreshToken!);
    return now;
  };

  it("renews before the command when the saved access token is about to run out, rotating the refresh token", async () => {
    const { home, tokens, file } = await signedInHome(60_000);
    const run = await whoami(home);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).tokenKind).toBe("signin");
    const after = remember(file);
    expect(after.token).not.toBe(tokens.accessToken);
    expect(after.refreshToken).not.toBe(tokens.refreshToken);
    expect(Date.parse(after.expiresAt!)).toBeGreaterThan(Date.now() + 55 * 60_000);
    // A token with time left is used as it is: nothing is renewed.
    const again = await whoami(home);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(saved(file).token).toBe(after.token);
  });

  it("renews once when the service refuses the token midway (its hour is over on the service's clock)", async () => {
    const { home, tokens, file } = await signedInHome(50 * 60_000);
    world.clock.offsetMs = 2 * HOUR;
    try {
      const run = await whoami(home);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(remember(file).token).not.toBe(tokens.accessToken);
    } finally {
      world.clock.offsetMs = 0;
    }
  });

  it("commands started at once renew one at a time: the sign-in survives (without the lock, a rotated refresh token came back and ended it)", async () => {
    const { home, file } = await signedInHome(-60_000);
    // The token endpoint answers slowly, so every command has read the file before the first renewal is saved.
    world.tokenDelay.ms = 1500;
    let runs: BatonRun[];
    try {
      runs = await Promise.all(Array.from({ length: 5 }, () => whoami(home)));
    } finally {
      world.tokenDelay.ms = 0;
    }
    for (const run of runs) expect(run.exitCode, run.stderr).toBe(0);
    const after = remember(file);
    // The saved refresh token is the live one: renewing with it works.
    writeFileSync(
      file,
      `${JSON.stringify({ ...after, expiresAt: new Date(Date.now() - 1000).toISOString() }, null, 2)}\n`,
      {
        mode: 0o600,
      },
    );
    const later = await whoami(home);
    expect(later.exitCode, later.stderr).toBe(0);
    remember(file);
  });

  it("a sign-in ended elsewhere (its old refresh token presented again) says to log in again and forgets the file", async () => {
    const { home, tokens, file } = await signedInHome(-60_000);
    expect((await whoami(home)).exitCode).toBe(0);
    remember(file);
    // The first refresh token comes back: the service ends the whole chain (RFC 9700 section 4.14.2).
    expect((await world.refresh(tokens.clientId, tokens.refreshToken)).body.error).toBe("invalid_grant");
    const current = saved(file);
    writeFileSync(
      file,
      `${JSON.stringify({ ...current, expiresAt: new Date(Date.now() - 1000).toISOString() }, null, 2)}\n`,
      {
        mode: 0o600,
      },
    );
    const run = await whoami(home);
    expect(run.exitCode).not.toBe(0);
    expect(run.stderr).toContain("your sign-in has ended");
    expect(run.stderr).toContain("baton login");
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
  });

  it("baton logout after the access token's hour ends the whole sign-in: the refresh token stops working too", async () => {
    const { home, tokens, file } = await signedInHome(50 * 60_000);
    world.clock.offsetMs = 2 * HOUR;
    try {
      const run = await runBaton(["logout"], {
        stdin: "ignore",
        env: { BATON_API_URL: world.url, XDG_CONFIG_HOME: join(home, "config"), HOME: home },
      });
      outputs.push(run.stdout, run.stderr);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.stderr).toBe("");
      expect(run.stdout).toContain("the sign-in is ended");
    } finally {
      world.clock.offsetMs = 0;
    }
    expect(() => readFileSync(file)).toThrow(/ENOENT/);
    // Before, the 401 counted as signed out and the refresh token kept the sign-in alive for 30 more days.
    const later = await world.refresh(tokens.clientId, tokens.refreshToken);
    expect(later.body.error, JSON.stringify(later)).toBe("invalid_grant");
  });
});
