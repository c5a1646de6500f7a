// `baton env test` starts a throwaway `baton serve`, `baton proxy` and a sandbox driver in its own process, then
// exits: loading their code is a large part of its time. Loaded as tsc's output that was some 950 files through
// Node's ES module loader (about 600 ms of CPU); the service side is one bundle instead. A load hook records every
// file the process reads as code. The Docker engine's socket points nowhere, so the run stops once the service,
// the proxy and the driver have been loaded (the driver's first call fails) and no box is made.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, expect, it } from "vitest";
import { PROJECT_ROOT, runBaton } from "../../helpers/cli.js";
import { FIXTURES } from "../../helpers/serve.js";

const tmp = mkdtempSync(join(tmpdir(), "baton-envtest-loading-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const HOOKS = `import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";
registerHooks({
  load(url, context, nextLoad) {
    if (url.startsWith("file:")) appendFileSync(process.env.BATON_TEST_LOADED, url + "\\n");
    return nextLoad(url, context);
  },
});
`;

it("loads the throwaway service, proxy and driver as one bundle, not file by file", async () => {
  const hooks = join(tmp, "hooks.mjs");
  const log = join(tmp, "loaded.txt");
  writeFileSync(hooks, HOOKS);
  writeFileSync(log, "");
  await runBaton(["env", "test", join(FIXTURES, "repos", "acme-api"), "--driver", "docker"], {
    env: {
      BATON_TEST_LOADED: log,
      DOCKER_HOST: `unix://${join(tmp, "no-engine.sock")}`,
      NODE_OPTIONS: `--import ${pathToFileURL(hooks).href}`,
    },
  });
  const loaded = readFileSync(log, "utf8").trim().split("\n");
  const dist = pathToFileURL(join(PROJECT_ROOT, "dist", "src")).href;
  // The service side was reached (so the list below is not just the CLI's own start).
  expect(loaded).toContain(`${dist}/bundle/env-test-service.cjs`);
  const ours = loaded.filter((url) => url.startsWith(dist));
  expect(ours.filter((url) => !url.startsWith(`${dist}/bundle/`) && url !== `${dist}/cli/bin.js`)).toEqual(
    [],
  );
  // Packages are inside the bundle; only an optional native probe (ssh2's cpu-features) is required at run time.
  expect(loaded.filter((url) => url.includes("/node_modules/")).length).toBeLessThanOrEqual(2);
});
