// `baton login` by piped token (reference rule 7), `baton logout` (rule 9) and the sign-in's lifetime (rule 8),
// through the real binary against a real `baton serve`. Logout revokes, so every token here is made fresh.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { TOKENS } from "../api/harness.js";
import { type ClientRig, startClientRig } from "./rig.js";

let rig: ClientRig;
beforeAll(async () => {
  rig = await startClientRig();
}, 90_000);
afterAll(async () => {
  await rig?.serve.stop();
});

const readConfig = (home: string) => JSON.parse(readFileSync(rig.configFile(home), "utf8"));
const meStatus = async (token: string) =>
  (await fetch(`${rig.serve.url}${API_PATHS.me}`, { headers: { authorization: `Bearer ${token}` } })).status;

describe("login by piped token (rule 7)", () => {
  it("one workspace: it becomes the default; the file is 0600 and holds kind personal", async () => {
    const home = await rig.newHome();
    const run = await rig.login(home, `${TOKENS.stranger}\n`);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain("Default workspace: ws_aaa_other (Aardvark).");
    expect(statSync(rig.configFile(home)).mode & 0o777).toBe(0o600);
    expect(readConfig(home)).toMatchObject({
      apiUrl: rig.serve.url,
      token: TOKENS.stranger,
      kind: "personal",
      workspace: "ws_aaa_other",
    });
  });

  it("several workspaces and no -w: no default saved, and the client says how to set one", async () => {
    const home = await rig.newHome();
    const run = await rig.login(home, TOKENS.owner);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("No default workspace saved.");
    expect(run.stderr).toContain("baton workspace <workspace-id>");
    expect(readConfig(home).workspace).toBeNull();
  });

  it("-w one of the user's workspaces is saved as the default", async () => {
    const home = await rig.newHome();
    expect((await rig.login(home, TOKENS.owner, ["-w", "ws_beta"])).exitCode).toBe(0);
    expect(readConfig(home).workspace).toBe("ws_beta");
  });

  it.each([
    [
      "-w a workspace that is not the user's",
      TOKENS.owner,
      ["-w", "ws_aaa_other"],
      "not one of your workspaces",
    ],
    ["a token the service refuses", "btn_not-a-real-token-000000000000", [], "401 invalid_token"],
    ["an empty stdin", "", [], "stdin was empty"],
    ["two words on stdin", "btn_a btn_b", [], "no spaces"],
  ])("%s: exit 1 and nothing saved", async (_what, input, args, says) => {
    const home = await rig.newHome();
    const run = await rig.login(home, input, args);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(says);
    expect(run.stderr).toContain("nothing was saved");
    expect(existsSync(rig.configFile(home))).toBe(false);
  });

  it("--token with piped input reads the pipe too", async () => {
    const home = await rig.newHome();
    const run = await rig.run(home, ["login", "--token", "-w", "ws_acme"], { input: TOKENS.dev });
    expect(run.exitCode).toBe(0);
    expect(readConfig(home).token).toBe(TOKENS.dev);
  });

  it("piped input with --no-browser is not read as a token: the browser sign-in runs instead", async () => {
    const home = await rig.newHome();
    // Stopped after 5 s: with the browser sign-in built in, it prints the address and waits for an approval.
    const run = await rig.run(home, ["login", "--no-browser"], { input: TOKENS.dev, timeoutMs: 5_000 });
    expect(run.stdout).not.toContain("Signed in");
    expect(run.stderr).toMatch(/browser sign-in|http/);
    expect(existsSync(rig.configFile(home))).toBe(false);
  });

  it("--api-url https is saved for later commands (nothing listens there: a network error, nothing saved)", async () => {
    const home = await rig.newHome();
    const run = await rig.run(home, ["login", "--api-url", "https://127.0.0.1:9"], {
      input: TOKENS.dev,
      env: { BATON_API_URL: "" },
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("could not reach the service at https://127.0.0.1:9");
    expect(existsSync(rig.configFile(home))).toBe(false);
  }, 30_000);
});

describe("logout (rule 9)", () => {
  it("revokes the token (DELETE /v1/me/token), deletes the file, exit 0", async () => {
    const home = await rig.newHome();
    const token = await rig.newToken("dev@acme.test");
    expect((await rig.login(home, token)).exitCode).toBe(0);
    expect(await meStatus(token)).toBe(200);
    const run = await rig.run(home, ["logout"]);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("Signed out");
    expect(existsSync(rig.configFile(home))).toBe(false);
    expect(await meStatus(token)).toBe(401);
  });

  it("service unreachable: the file is still deleted, a warning says the token may still work, exit 0", async () => {
    const home = await rig.newHome();
    const token = await rig.newToken("dev@acme.test");
    await rig.login(home, token);
    const run = await rig.run(home, ["logout"], { env: { BATON_API_URL: "http://127.0.0.1:9" } });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("warning:");
    expect(run.stderr).toContain("may still work");
    expect(existsSync(rig.configFile(home))).toBe(false);
    expect(await meStatus(token)).toBe(200);
  }, 30_000);

  it("a token already revoked: signed out without a warning", async () => {
    const home = await rig.newHome();
    const token = await rig.newToken("dev@acme.test");
    await rig.login(home, token);
    await fetch(`${rig.serve.url}${API_PATHS.meToken}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${token}` },
    });
    const run = await rig.run(home, ["logout"]);
    expect(run).toMatchObject({ exitCode: 0, stderr: "" });
    expect(existsSync(rig.configFile(home))).toBe(false);
  });

  it("not signed in: nothing to do, exit 0", async () => {
    const run = await rig.run(await rig.newHome(), ["logout"]);
    expect(run).toMatchObject({ exitCode: 0, stdout: "Not signed in; nothing to do.\n" });
  });

  it("a corrupt config file is deleted too, with a warning", async () => {
    const home = await rig.newHome();
    await rig.login(home, TOKENS.dev);
    writeFileSync(rig.configFile(home), "{ not json");
    const run = await rig.run(home, ["logout"]);
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("warning:");
    expect(existsSync(rig.configFile(home))).toBe(false);
  });
});

describe("a sign-in lasts 90 days, or until 30 days unused (rule 8)", () => {
  const DAY = 24 * 60 * 60 * 1000;
  const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

  async function signedIn(kind: "signin" | "personal", signedInAgo: number, lastUsedAgo: number) {
    const home = await rig.newHome();
    await rig.login(home, TOKENS.dev);
    writeFileSync(
      rig.configFile(home),
      JSON.stringify({
        ...readConfig(home),
        kind,
        signedInAt: ago(signedInAgo),
        lastUsedAt: ago(lastUsedAgo),
      }),
      { mode: 0o600 },
    );
    return home;
  }

  it.each([
    ["91 days after signing in", 91 * DAY, 0, "more than 90 days old"],
    ["30 days unused", 40 * DAY, 30 * DAY, "not been used for 30 days"],
  ])(
    "%s: exit 1, asks to log in again, the lapsed file is gone",
    async (_what, signedInAgo, lastUsedAgo, says) => {
      const home = await signedIn("signin", signedInAgo, lastUsedAgo);
      const run = await rig.run(home, ["whoami"]);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain(says);
      expect(run.stderr).toContain("run `baton login`");
      expect(existsSync(rig.configFile(home))).toBe(false);
    },
  );

  it("89 days and used 29 days ago still works, and the use is written down", async () => {
    const home = await signedIn("signin", 89 * DAY, 29 * DAY);
    const before = Date.now();
    expect((await rig.run(home, ["whoami"])).exitCode).toBe(0);
    expect(Date.parse(readConfig(home).lastUsedAt)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("lastUsedAt is not rewritten within the hour: the file is left alone", async () => {
    const home = await signedIn("signin", DAY, 10 * 60 * 1000);
    const text = readFileSync(rig.configFile(home), "utf8");
    const inode = statSync(rig.configFile(home)).ino;
    expect((await rig.run(home, ["whoami"])).exitCode).toBe(0);
    expect(readFileSync(rig.configFile(home), "utf8")).toBe(text);
    expect(statSync(rig.configFile(home)).ino).toBe(inode);
  });
});

describe("canary", () => {
  it("no token in any output, nor in any file but config.json (the service's store included)", async () => {
    const others = (await rig.homeFiles()).filter((f) => !f.endsWith("/baton/config.json"));
    // The store's folder (the key file beside it on both engines) and the stored data itself.
    const serveDir = dirname(rig.serve.dbPath);
    const store = readdirSync(serveDir).map((name) => readFileSync(join(serveDir, name), "latin1"));
    expect(store.length).toBeGreaterThan(0);
    store.push(await rig.serve.dump());
    const texts = [...rig.outputs, ...others.map((f) => readFileSync(f, "utf8")), ...store];
    for (const token of Object.values(TOKENS)) for (const text of texts) expect(text).not.toContain(token);
  });
});
