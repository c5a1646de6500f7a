// `baton env test` end to end, on both drivers: the fixture repository passes (exit 0, every step, the evidence
// and the disclosure in --json); a failing startup script exits 1 naming the step; readiness checks given as
// flags run inside the box (a server the script starts is ready; a check that never passes is not_ready, exit 1);
// a bad .batonrc.json stops at lint naming the key, and a bad readiness flag is refused, before any box exists.
// By default the box's one way out is a throwaway baton proxy: the startup script meets HTTP(S)_PROXY and the
// proxy's refusals (in the evidence and the disclosure); with --no-proxy it meets no proxy variables at all.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runBaton } from "../helpers/cli.js";
import { DRIVERS } from "../helpers/sandbox-drivers.js";
import { FIXTURES } from "../helpers/serve.js";

const tmp = mkdtempSync(join(tmpdir(), "baton-sandbox-envtest-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function checkout(changes: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmp, "acme-api-"));
  cpSync(join(FIXTURES, "repos", "acme-api"), dir, { recursive: true });
  for (const [path, text] of Object.entries(changes)) writeFileSync(join(dir, path), text, { mode: 0o755 });
  return dir;
}

/** The throwaway proxies' state folders in the system's temporary folder (this file's runs are sequential). */
function proxyStateFolders(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith("baton-env-test-proxy-"));
}

describe.each(DRIVERS)("baton env test on the %s driver", (driver) => {
  const envTest = (dir: string, ...flags: string[]) =>
    runBaton(["env", "test", dir, "--repository", "acme/api", "--driver", driver, ...flags]);
  it("passes the fixture repository: every step, the evidence and the disclosure", async () => {
    const run = await envTest(checkout(), "--json");
    expect(run.exitCode).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result.steps.map((s: { name: string; ok: boolean }) => `${s.name}:${s.ok}`)).toEqual([
      "lint:true",
      "provision:true",
      "activate:true",
      "dockerfile:true",
      "startup:true",
      "disclose:true",
    ]);
    expect(result.evidence).toMatchObject({ outcome: "succeeded", repository: "acme/api" });
    expect(result.disclosure).toContain("Environment disclosure: acme/api");
    expect(run.stderr).toContain("baton env test: startup…"); // progress goes to stderr
  });

  it("starts a throwaway baton proxy the startup script goes out through, and removes its folder", async () => {
    // The script reports what it met (never the proxy URL itself: it carries the box's lease) and what the proxy
    // answered a request for the cloud metadata address; the runner keeps its output in the evidence.
    const probing = checkout({
      "scripts/start.sh": [
        "#!/bin/bash",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash expansions, not a template
        'echo "HTTP_PROXY ${HTTP_PROXY:+set} HTTPS_PROXY ${HTTPS_PROXY:+set} BATON_PROXY_URL ${BATON_PROXY_URL:-unset}"',
        "curl -sS -o /dev/null -D - --max-time 20 http://169.254.169.254/latest/meta-data/ | tr -d '\\r' | grep -i '^baton-proxy-error:' || echo 'no refusal from a proxy'",
        "",
      ].join("\n"),
    });
    const before = new Set(proxyStateFolders());
    const run = await envTest(probing, "--json");
    const result = JSON.parse(run.stdout);
    expect(result.evidence.output.head).toMatch(
      /^HTTP_PROXY set HTTPS_PROXY set BATON_PROXY_URL http:\/\/[\d.]+:\d+\n/,
    );
    expect(result.evidence.output.head).toMatch(/^baton-proxy-error: destination_denied$/im);
    expect(run.exitCode).toBe(0);
    expect(result.egress).toEqual({
      proxy: "throwaway",
      address: expect.stringMatching(/^127\.0\.0\.1:\d+$/),
    });
    // The proxy told the service what it refused, in time for the disclosure.
    expect(result.disclosure).toMatch(/`GET 169\.254\.169\.254:80` \| `403 destination_denied`/);
    // Its CA and audit lines lived in a temporary folder, removed when the run ended.
    expect(proxyStateFolders().filter((name) => !before.has(name))).toEqual([]);
  });

  it("starts no proxy with --no-proxy: the startup script meets no proxy variables", async () => {
    const probing = checkout({
      "scripts/start.sh": "#!/bin/bash\nenv | grep -ic '_proxy' || true\n",
    });
    const run = await envTest(probing, "--no-proxy");
    expect(run.stdout).toMatch(
      /^ {2}egress: none \(--no-proxy\): the box reaches only the throwaway service$/m,
    );
    expect(run.exitCode).toBe(0);
    const json = await envTest(probing, "--no-proxy", "--json");
    const result = JSON.parse(json.stdout);
    expect(result.egress).toEqual({ proxy: "none", address: null });
    expect(result.evidence.output.head).toBe("0\n"); // no HTTP_PROXY, https_proxy, NO_PROXY, BATON_PROXY_URL…
    // No proxy, so no proxy section: not a line saying a proxy refused nothing.
    expect(result.disclosure).toContain("Environment disclosure: acme/api");
    expect(result.disclosure).not.toContain("Egress proxy");
    expect(result.disclosure).not.toContain("refused nothing");
  });

  it("exits 1 when the startup script fails, naming the step", async () => {
    const failing = checkout({ "scripts/start.sh": "#!/bin/sh\necho 'cannot start' >&2\nexit 3\n" });
    const run = await envTest(failing);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(
      /^ {2}egress: only through a throwaway baton proxy at 127\.0\.0\.1:\d+ \(HTTP_PROXY and HTTPS_PROXY are set in the box\)$/m,
    );
    expect(run.stdout).toMatch(/^ {2}startup +FAILED +\d+ ms {2}outcome failed$/m);
    expect(run.stdout).toContain("baton env test: failed at startup");
    expect(run.stdout).toMatch(/evidence: outcome failed, exit 3/);
  });

  it("checks readiness given as flags against a server the startup script leaves running", async () => {
    // The server outlives the script (its output goes elsewhere, so the runner stops waiting for it at once).
    const serving = checkout({
      "scripts/start.sh": `#!/bin/bash\nnohup node -e 'require("node:http").createServer((q, s) => s.end("ok")).listen(18080, "127.0.0.1")' >/dev/null 2>&1 &\n`,
    });
    const run = await envTest(
      serving,
      "--ready-url",
      "http://127.0.0.1:18080/health",
      "--ready-tcp",
      "127.0.0.1:18080",
      "--ready-command",
      "test -d .git || test -e scripts/start.sh",
      "--json",
    );
    const result = JSON.parse(run.stdout);
    expect(result.evidence).toMatchObject({ outcome: "succeeded", readiness: { status: "ready" } });
    expect(run.exitCode).toBe(0);
    // Each flag is one check, with the default deadline (30 s) when --ready-timeout is not given.
    expect(
      result.evidence.readiness.checks.map((c: { kind: string; target: string; ok: boolean }) => [
        c.kind,
        c.target,
        c.ok,
      ]),
    ).toEqual([
      ["http", "http://127.0.0.1:18080/health", true],
      ["tcp", "127.0.0.1:18080", true],
      ["command", "test -d .git || test -e scripts/start.sh", true],
    ]);
    expect(
      result.evidence.readiness.checks.map((c: { deadlineSeconds: number }) => c.deadlineSeconds),
    ).toEqual([30, 30, 30]);
  });

  it("exits 1 with outcome not_ready when a readiness check fails by its deadline, naming readiness", async () => {
    const run = await envTest(checkout(), "--ready-command", "false", "--ready-timeout", "0.5");
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/^ {2}startup +FAILED +\d+ ms {2}outcome not_ready$/m);
    expect(run.stdout).toContain("evidence: outcome not_ready, exit 0,");
    expect(run.stdout).toMatch(/readiness not_ready$/m);
    expect(run.stdout).toMatch(
      /^ {2}readiness FAILED command false: exit 1 after \d+ ms \(deadline 0\.5 s\)$/m,
    );
    expect(run.stdout).toMatch(
      /^baton env test: failed at startup after [\d.]+ s: not ready \(1 of 1 readiness checks failed by their deadline\); /m,
    );
  });
});

it.each([
  [["--ready-url", "ftp://127.0.0.1/"], "--ready-url must be an http:// or https:// URL with a host"],
  [["--ready-url", "http://127.0.0.1/", "--ready-url", "localhost:3000"], "--ready-url (#2 of 2) must be"],
  [["--ready-tcp", "127.0.0.1"], "--ready-tcp must be host:port"],
  [["--ready-command", " "], "--ready-command must be a command for bash -c"],
  [["--ready-timeout", "0"], "option '--ready-timeout <seconds>' argument '0' is invalid"],
  [["--ready-timeout", "soon"], "option '--ready-timeout <seconds>' argument 'soon' is invalid"],
  [
    ["--ready-command", "true", "--ready-timeout", "60", "--timeout", "30"],
    "--ready-timeout (60 s) must be less than --timeout (30 s)",
  ],
])("refuses the readiness flags %j naming the flag, before making a box", async (flags, message) => {
  const run = await runBaton(["env", "test", checkout(), "--repository", "acme/api", ...flags, "--json"]);
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toContain(message);
  expect(JSON.parse(run.stdout).error).toMatchObject({ code: "usage" });
  expect(run.stderr).not.toContain("baton env test: provision"); // no progress: nothing started
});

// A proxy of the user's own would refuse the box (it cannot know the throwaway service's leases): no such flag.
it("refuses --proxy <host:port>, before making a box", async () => {
  const run = await runBaton(["env", "test", checkout(), "--proxy", "127.0.0.1:3128", "--json"]);
  expect(run.exitCode).toBe(1);
  expect(run.stderr).toContain("unknown option '--proxy'");
  expect(run.stderr).not.toContain("baton env test: provision");
});

it("refuses a readiness URL carrying a password without printing it", async () => {
  const canary = "canary-ready-url-5ecret";
  const run = await runBaton([
    "env",
    "test",
    checkout(),
    "--repository",
    "acme/api",
    "--ready-url",
    `http://admin:${canary}@127.0.0.1:3000/health`,
    "--json",
  ]);
  expect(run.exitCode).toBe(1);
  expect(JSON.parse(run.stdout).error.message).toBe(
    "--ready-url must not carry a user name or password (the URL is written to the handoff and the evidence)",
  );
  expect(run.stdout + run.stderr).not.toContain(canary);
});

it("stops at lint on a bad .batonrc.json, naming each key, before making a box", async () => {
  const bad = checkout({
    ".batonrc.json": JSON.stringify({ sandbox: { env: { "9LIVES": "x" } }, post_build: [] }),
  });
  const run = await runBaton(["env", "test", bad, "--repository", "acme/api", "--json"]);
  expect(run.exitCode).toBe(1);
  const result = JSON.parse(run.stdout);
  expect(result.steps).toEqual([expect.objectContaining({ name: "lint", ok: false })]);
  expect(result.batonrcProblems.map((p: { path: string }) => p.path).sort()).toEqual([
    "post_build",
    "sandbox.env.9LIVES",
  ]);
});

// A hostile checkout: a FIFO would hang a plain read, and a link would read another file (as root on a sandbox
// host) and quote it in the JSON error.
it.each([
  ["a FIFO", (path: string) => execFileSync("mkfifo", [path])],
  ["a link to another file", (path: string) => symlinkSync("/etc/shadow", path)],
])("refuses a .batonrc.json that is %s, naming the file, before making a box", async (_what, make) => {
  const dir = checkout();
  make(join(dir, ".batonrc.json"));
  const run = await runBaton(["env", "test", dir, "--repository", "acme/api", "--json"]);
  expect(run.exitCode).toBe(1);
  expect(JSON.parse(run.stdout).error.message).toBe(
    `.batonrc.json in ${dir} must be a regular file in the checkout, not a symbolic link, FIFO or device; replace it with the JSON file itself`,
  );
  expect(run.stdout + run.stderr).not.toContain("root:");
});

// Every command the box runs costs the engine a process in it and the run a round trip, and every `baton` in it a
// Node start-up: the box gets its checkout before it starts (no `mkdir` in it first), and the agent's four steps
// run in one `baton env rehearse`. The engine's own event stream says which commands ran in the run's box: one.
it("runs the agent's four steps as one command in the Docker box", async () => {
  const repository = `perf/exec-${randomBytes(4).toString("hex")}`; // names this run's box among concurrent ones
  const since = Math.floor(Date.now() / 1000) - 1;
  const run = await runBaton(["env", "test", checkout(), "--repository", repository, "--driver", "docker"]);
  expect(run.exitCode).toBe(0);
  const until = Math.ceil(Date.now() / 1000) + 1;
  const events = execFileSync(
    "docker",
    [
      "events",
      "--since",
      String(since),
      "--until",
      String(until),
      "--filter",
      "type=container",
      "--filter",
      "event=exec_create",
      "--filter",
      "label=baton.engagement=env-test",
      "--format",
      "{{.Actor.ID}} {{.Action}}",
    ],
    { encoding: "utf8" },
  )
    .trim()
    .split("\n");
  const ours = events.find((line) => line.includes(repository))?.split(" ")[0];
  const commands = events
    .filter((line) => line.startsWith(`${ours} `))
    .map((line) => line.replace(/^\S+ exec_create: timeout --kill-after=2 [\d.]+ /, ""));
  expect(commands).toEqual([
    expect.stringMatching(new RegExp(`baton env rehearse ${repository} --timeout 600$`)),
  ]);
});
