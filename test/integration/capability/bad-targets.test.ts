// Targets and reasons the reference forbids: exit 1, nothing stored, and the value never echoed — through the CLI
// (refused before anything is sent) and straight at the service (refused there too).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { killLeftoverServes } from "../../helpers/serve.js";
import { paths, startWorld, type World } from "./harness.js";

let world: World;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(async () => {
  await world?.close();
  await killLeftoverServes();
});

const SECRETISH = "ghp_Zq8Xw2Lm4Nc6Vb1Rt9Yp3Hs5Dk7Fj0Ga2Qe";
const cases: [string, string[], RegExp][] = [
  [
    "credentials in a URL",
    ["--target", "https://deploy:Pa55w0rdCanary@registry.example.com/x"],
    /credentials/,
  ],
  ["a query string", ["--target", "https://registry.example.com/pkg?token=QueryCanary123"], /query string/],
  ["a fragment", ["--target", "https://registry.example.com/pkg#FragmentCanary"], /fragment/],
  ["an environment-variable name", ["--target", "NPM_TOKEN"], /environment-variable name/],
  ["a secret-looking target", ["--target", SECRETISH], /secret/],
  [
    "a secret in the reason",
    ["--target", "registry.example.com", "--reason", `token is ${SECRETISH}`],
    /secret/,
  ],
  [
    "raw log output as reason",
    [
      "--target",
      "registry.example.com",
      "--reason",
      "npm ERR! code E401\nnpm ERR! 401 Unauthorized - GET https://registry.example.com/x\nnpm ERR! a\nnpm ERR! b",
    ],
    /log output/,
  ],
  [
    "an unknown capability kind",
    ["--capability", "superpowers", "--target", "registry.example.com"],
    /registry_access, service_credential, api_key, data_access, other/,
  ],
];

describe("refused targets and reasons", () => {
  it.each(cases)("%s: exit 1, nothing stored, value not echoed", async (_name, args, why) => {
    const flags = ["--capability", "registry_access", "--reason", "npm install fails", ...args];
    // Later flags win in commander, so a case's own --capability/--reason replaces the defaults.
    const run = await world.request(flags);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(why);
    const value = args[args.length - 1]!;
    expect(run.stdout + run.stderr).not.toContain(value);
    expect(await world.rows("SELECT id FROM capability_requests")).toHaveLength(0);
  });

  it.each(cases)(
    "%s: the service refuses it too (400), stores nothing and does not echo it",
    async (_name, args) => {
      const body: Record<string, string> = {
        repository: "acme/api",
        capability: "registry_access",
        reason: "npm install fails",
      };
      for (let i = 0; i < args.length; i += 2) body[args[i]!.slice(2)] = args[i + 1]!;
      const response = await fetch(`${world.serve.opsUrl}${paths.requests}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${world.sandbox.env.BATON_TURN_TOKEN}`,
          "baton-sandbox-lease": world.sandbox.env.BATON_SANDBOX_LEASE!,
          "content-type": "application/json",
        },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      expect(response.status).toBe(400);
      expect(text).not.toContain(args[args.length - 1]!);
      expect(await world.rows("SELECT id FROM capability_requests")).toHaveLength(0);
    },
  );

  it.each([
    [["--evidence", "permission", "--status", "401"], /permission goes with --status 403/],
    [["--evidence", "network", "--status", "403"], /network takes no --status/],
    [["--status", "401"], /--status goes with --evidence/],
    [[], /--reason is required/],
  ])("evidence flags %j are checked before anything is sent (exit 1)", async (args, why) => {
    const run = await world.request([
      "--capability",
      "registry_access",
      "--target",
      "registry.example.com",
      ...args,
    ]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(why);
    expect(await world.rows("SELECT id FROM capability_requests")).toHaveLength(0);
  });

  it("the service log never holds a refused value", () => {
    for (const [, args] of cases) expect(world.serve.output()).not.toContain(args[args.length - 1]!);
  });
});
