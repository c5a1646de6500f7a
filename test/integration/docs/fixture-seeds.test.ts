// The seeds the docs start `baton serve` with work when their examples are followed in order: an agent in a sandbox
// of ws_acme activates acme/api (no 403 rollout_disabled) and the startup runner ends `succeeded`, its readiness
// checks passing against what the fixture's start.sh does (a check on a port it never serves waited 30 s, then
// ended not_ready).
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { runBaton } from "../../helpers/cli.js";
import {
  createSandbox,
  FIXTURES,
  killLeftoverServes,
  makeSandboxHome,
  type SandboxHome,
  type ServeHandle,
  startServe,
} from "../../helpers/serve.js";

let serve: ServeHandle | undefined;
let home: SandboxHome | undefined;
afterEach(async () => {
  await serve?.stop();
  await home?.remove();
  serve = undefined;
  home = undefined;
  await killLeftoverServes();
});

describe.each([
  ["fixtures/server/seed.json (docs/operators.md, docs/agents.md)", `${FIXTURES}/server/seed.json`],
  ["fixtures/seeds/api.json (README tour, docs/api.md)", `${FIXTURES}/seeds/api.json`],
])("%s", (_name, seed) => {
  it("lets a sandbox of ws_acme activate acme/api and start it with the runner, readiness passing", async () => {
    serve = await startServe({ seed });
    const sandbox = await createSandbox(serve, { workspaceId: "ws_acme", engagementId: "eng-docs" });
    home = await makeSandboxHome({ "acme/api": "acme-api" });
    const env = home.env(sandbox);

    const activation = await runBaton(["env", "activate", "acme/api", "--json"], { env });
    expect(activation.stderr).toBe("");
    expect(activation.exitCode).toBe(0);

    const runner = await execa(
      "bash",
      [
        "-c",
        `. "$HOME/.baton/environment.sh" && "${process.execPath}" "$HOME/.baton/runner/baton-runner.cjs" --repo acme/api`,
      ],
      { env: { ...env, PATH: process.env.PATH }, reject: false, cwd: home.home },
    );
    const evidence = JSON.parse(runner.stdout) as { outcome: string; readiness: { status: string } };
    expect({ exit: runner.exitCode, outcome: evidence.outcome, stderr: runner.stderr }).toMatchObject({
      exit: 0,
      outcome: "succeeded",
    });
    expect(["ready", "unknown"]).toContain(evidence.readiness.status);
  }, 90_000);
});
