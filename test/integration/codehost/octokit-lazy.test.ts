// Octokit (the GitHub adapter's SDK) loads on the adapter's first call, not when the service is composed: a
// `baton serve` without a GitHub App, `baton env test`'s throwaway service and every client path never load it
// (test/integration/cli/no-vendor-sdks.test.ts checks the client bundles). A resolve hook records every @octokit
// module a fresh Node process resolves while it imports the service's modules (tsc's output in dist/, as
// `baton serve` loads them), makes the adapter, and then calls it once; the call goes to an address where
// nothing listens (no code host is reachable from the test machine), so it fails, after loading Octokit.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const dist = (path: string) => pathToFileURL(join(PROJECT_ROOT, "dist", "src", path)).href;

const SCRIPT = `
import { registerHooks } from "node:module";
const octokit = new Set();
registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (resolved.url.includes("/@octokit/")) octokit.add(resolved.url);
    return resolved;
  },
});
await import(${JSON.stringify(dist("server/index.js"))});
const { createGithubCodehost } = await import(${JSON.stringify(dist("server/adapters/codehost/github/adapter.js"))});
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const adapter = createGithubCodehost({
  db: {},
  settings: { appId: "1", appSlug: "a", privateKeyPem: "", clientId: "c", clientSecret: "s",
    webUrl: "http://127.0.0.1:9", apiUrl: "http://127.0.0.1:9/api/v3" },
  logger: quiet,
  now: () => new Date(),
  retryMinTimeoutMs: 1,
});
const composed = octokit.size;
const failure = await adapter.getInstallation("1").then(() => "answered", (error) => error.name);
process.stdout.write(JSON.stringify({ composed, called: octokit.size, failure }));
`;

it("composing the service and making the GitHub adapter loads no Octokit module; the first call does", () => {
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", SCRIPT], {
    encoding: "utf8",
    timeout: 30_000,
  });
  expect(run.stderr).toBe("");
  const { composed, called, failure } = JSON.parse(run.stdout) as {
    composed: number;
    called: number;
    failure: string;
  };
  expect(composed).toBe(0);
  // The hook does see Octokit once the adapter needs it (so the 0 above is not a blind hook).
  expect(called).toBeGreaterThan(3);
  expect(failure).toBe("CodehostError");
});
