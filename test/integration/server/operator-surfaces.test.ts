// What `baton serve` says about its operator surfaces at start, and what `baton admin` says when it finds none:
// a weak operator token stops the start (exit 1, naming how to make a strong one, never echoing it); plain HTTP
// off loopback gets one warning line; an admin command pointed at a service with no admin API says how to enable
// one instead of "no such route". Real `baton serve` processes, the built CLI.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BATON_BIN, runBaton } from "../../helpers/cli.js";
import { killLeftoverServes, type ServeHandle, startServe, TEST_ADMIN_TOKEN } from "../../helpers/serve.js";

let dir: string;
const children: ChildProcess[] = [];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "baton-operator-surfaces-"));
});
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await killLeftoverServes();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `baton serve --json` with exactly the operator tokens given (test/helpers/serve.ts always sets one). */
async function serveWith(env: Record<string, string>): Promise<{ url: string; adminUrl: string | null }> {
  const db = join(dir, `serve-${randomBytes(4).toString("hex")}.sqlite`);
  const child = spawn(process.execPath, [BATON_BIN, "serve", "--port", "0", "--db", db, "--json"], {
    env: { ...process.env, BATON_ADMIN_TOKEN: "", BATON_PROXY_TOKEN: "", BATON_LOG_LEVEL: "", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`baton serve exited (${code}) before listening`)));
    createInterface({ input: child.stdout! }).once("line", resolve);
  });
  return JSON.parse(line) as { url: string; adminUrl: string | null };
}

const createToken = (url: string) =>
  runBaton(["admin", "token", "create", "--url", url, "--email", "dev@acme.test", "--name", "x"], {
    env: { BATON_ADMIN_TOKEN: TEST_ADMIN_TOKEN },
  });

describe("operator tokens are refused at start when weaker than 32 random bytes", () => {
  const weak: [what: string, token: string][] = [
    ["one letter", "a"],
    ["the old test token", "test-admin-token-0123456789"],
    ["24 random bytes", randomBytes(24).toString("hex")],
    ["64 times one letter", "a".repeat(64)],
    ["a weak canary", "canary-weak-token-5e1b7c90"],
  ];
  it.each(
    ["BATON_ADMIN_TOKEN", "BATON_PROXY_TOKEN"].flatMap((name) =>
      weak.map(([what, token]) => [name, what, token]),
    ),
  )("%s = %s: exit 1 before opening or listening, naming how to make one", async (name, _what, token) => {
    const db = join(dir, `weak-${randomBytes(4).toString("hex")}.sqlite`);
    const run = await runBaton(["serve", "--port", "0", "--db", db], {
      env: { [name!]: token! },
      timeout: 20_000,
    });
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`${name} is too weak to guard the service`);
    expect(run.stderr).toContain("openssl rand -hex 32");
    // The value is never echoed (a one-letter token is in any sentence, so the longer ones show it).
    if (token!.length > 8) expect(run.stdout + run.stderr).not.toContain(token);
    expect(existsSync(db)).toBe(false);
  });

  it("a token of 32 random bytes starts (hex or base64url)", async () => {
    for (const token of [randomBytes(32).toString("hex"), randomBytes(32).toString("base64url")]) {
      const started = await serveWith({ BATON_ADMIN_TOKEN: token, BATON_PROXY_TOKEN: token });
      expect(started.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    }
  });
});

/** Everything on stderr but the audit log's JSON lines (info by default) is a warning. */
function warningsOf(serve: ServeHandle): string[] {
  return serve
    .stderr()
    .split("\n")
    .filter((line) => line && !line.startsWith("{"));
}

describe("plain HTTP off loopback", () => {
  it("--host 0.0.0.0 prints one warning line naming what is exposed and how to put TLS in front", async () => {
    const open = await startServe({ args: ["--host", "0.0.0.0"] });
    try {
      const warnings = warningsOf(open);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /^baton serve: warning: --host 0\.0\.0\.0 serves the public API over plain HTTP at http:\/\/0\.0\.0\.0:\d+ to other machines: .*put a TLS reverse proxy in front/,
      );
      // The sandbox and admin listeners stayed on loopback: no line for them.
      expect(new URL(open.opsUrl).hostname).toBe("127.0.0.1");
      expect(new URL(open.adminUrl).hostname).toBe("127.0.0.1");
    } finally {
      await open.stop();
    }
  });

  it("an admin listener off loopback gets its own line", async () => {
    const open = await startServe({ args: ["--admin-listen", "0.0.0.0:0"] });
    try {
      const warnings = warningsOf(open);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^baton serve: warning: --admin-listen 0\.0\.0\.0 serves the admin API/);
    } finally {
      await open.stop();
    }
  });
});

describe("baton admin against a service with no admin API", () => {
  const enable = /start baton serve with BATON_ADMIN_TOKEN set .* point --url at its admin listener/;

  it("without BATON_ADMIN_TOKEN the service opens no admin listener, and the public one has no admin API", async () => {
    const plain = await serveWith({});
    expect(plain.adminUrl).toBeNull();
    const run = await createToken(plain.url);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`${plain.url} has no admin API enabled`);
    expect(run.stderr).toMatch(enable);
    expect(run.stderr).not.toContain("no such route");
  });

  it("with only BATON_PROXY_TOKEN the admin listener serves no admin API", async () => {
    const proxied = await serveWith({ BATON_PROXY_TOKEN: randomBytes(32).toString("hex") });
    const run = await createToken(proxied.adminUrl!);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("has no admin API enabled");
    expect(run.stderr).toMatch(enable);
  });

  it("a refused connection says nothing listens there and how to enable the admin API", async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const run = await createToken(`http://127.0.0.1:${port}`);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`nothing listens at http://127.0.0.1:${port}`);
    expect(run.stderr).toMatch(enable);
  });
});
