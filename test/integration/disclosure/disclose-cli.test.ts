// `baton disclose` through the built CLI over real files in a temporary HOME: the saved handoff, Dockerfile
// step state and evidence are written here in the formats their producers use (each producer has its own tests).
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderEnvironmentFile } from "../../../src/envfile/index.js";
import { runBaton } from "../../helpers/cli.js";
import { savedHandoff } from "../../helpers/handoff.js";
import { sampleRecord } from "../../unit/evidence/sample-record.js";

const CANARY = "canary-secret-7f3a9c2e1b";
let home: string;

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "baton-disclose-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

async function writeSandbox(): Promise<void> {
  const baton = join(home, ".baton");
  await mkdir(join(baton, "handoffs"), { recursive: true, mode: 0o700 });
  await mkdir(join(baton, "state", "dockerfile"), { recursive: true });
  await mkdir(join(baton, "evidence"), { recursive: true });
  const checkout = join(home, "checkouts", "acme", "api");
  const handoff = savedHandoff(checkout, {
    dockerfilePath: join(checkout, "Dockerfile"),
    startupScriptPath: join(checkout, "startup.sh"),
    runPath: join(baton, "runner", "baton-runner.cjs"),
    evidencePath: join(baton, "evidence", "acme__api.json"),
  });
  await writeFile(join(baton, "handoffs", "acme__api.json"), JSON.stringify(handoff));
  const step = {
    versionId: "v1",
    digest: "abc",
    index: 1,
    line: 2,
    // A repository's Dockerfile text is untrusted and may carry a secret value: the disclosure must scrub it.
    instruction: `RUN curl -H "x-token: ${CANARY}" example.invalid`,
    action: "run",
    status: "failed",
    notes: [],
    startedAt: new Date().toISOString(),
    durationMs: 12,
    exitCode: 7,
    signal: null,
    outputTail: `curl: (6) ${CANARY}`,
    redactions: 0,
  };
  await writeFile(
    join(baton, "state", "dockerfile", "acme__api.json"),
    JSON.stringify({
      schemaVersion: 1,
      repository: "acme/api",
      records: [step],
      lastRun: { versionId: "v1", finishedAt: new Date().toISOString(), status: "failed", steps: [step] },
    }),
  );
  await writeFile(
    join(baton, "environment.sh"),
    renderEnvironmentFile({
      revision: 1,
      repositories: [
        {
          repository: "acme/api",
          repositoryId: "r1",
          variables: [{ name: "API_TOKEN", assigned: "API_TOKEN", value: CANARY, source: "secret" }],
        },
      ],
    }),
  );
}

describe("baton disclose", () => {
  it("prints a draft disclosure naming the failed step and the unrun check, with no secret value", async () => {
    await writeSandbox();
    const run = await runBaton(["disclose", "acme/api", "--check", "npm test=not_run:needs postgres"], {
      env: { HOME: home, API_TOKEN: CANARY, BATON_LOG_LEVEL: "debug" },
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("**Draft:**");
    expect(run.stdout).toContain("required check `npm test` did not run");
    expect(run.stdout).toContain("the Dockerfile did not apply");
    expect(run.stdout).toContain("No startup evidence");
    expect(run.stdout).toContain("[REDACTED:API_TOKEN]");
    expect(run.stdout + run.stderr).not.toContain(CANARY);
  });

  it("--json prints {repository, draft, draftReasons, markdown}", async () => {
    await writeSandbox();
    const run = await runBaton(["disclose", "acme/api", "--json"], {
      env: { HOME: home, API_TOKEN: CANARY },
    });
    expect(run.exitCode).toBe(0);
    const parsed = JSON.parse(run.stdout);
    expect(Object.keys(parsed).sort()).toEqual(["draft", "draftReasons", "markdown", "repository"]);
    expect(parsed.draft).toBe(true);
    expect(run.stdout).not.toContain(CANARY);
  });

  it("a malformed --check exits 1 saying the expected form", async () => {
    const run = await runBaton(["disclose", "acme/api", "--check", "tests"], { env: { HOME: home } });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("--check must look like");
  });

  it.each([
    ["a repository never activated here", "acme/web"],
    ["a misspelt repository", "acme/apii"],
    ["a repository named with the wrong case", "Acme/API"],
  ])("%s is exit 1 naming `baton env activate`, with no disclosure", async (_what, repository) => {
    await writeSandbox();
    const run = await runBaton(["disclose", repository], { env: { HOME: home } });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`baton env activate ${repository}`);
    expect(run.stdout).toBe("");
    const json = await runBaton(["disclose", repository, "--json"], { env: { HOME: home } });
    expect(json.exitCode).toBe(1);
    expect(JSON.parse(json.stdout).error.code).toBe("not_found");
  });

  it("no --check while the checkout has AGENTS.md is a draft naming the file", async () => {
    await writeSandbox();
    await mkdir(join(home, "checkouts", "acme", "api"), { recursive: true });
    await writeFile(join(home, "checkouts", "acme", "api", "AGENTS.md"), "Run `npm test` before pushing.\n");
    const run = await runBaton(["disclose", "acme/api", "--json"], { env: { HOME: home } });
    expect(run.exitCode).toBe(0);
    const parsed = JSON.parse(run.stdout);
    expect(parsed.draft).toBe(true);
    expect(parsed.draftReasons.join("\n")).toMatch(/no required checks were reported.*`AGENTS\.md`/);
  });
});

describe("baton disclose trusts only what the path rules allow", () => {
  const handoffFile = () => join(home, ".baton", "handoffs", "acme__api.json");
  /** A FIFO in the way used to block the command forever; this bound turns such a hang into a failure. */
  const HANG_GUARD_MS = 20_000;

  it("an edited evidencePath outside ~/.baton is refused (exit 1), not read", async () => {
    await writeSandbox();
    const outside = join(home, "planted-evidence.json");
    await writeFile(outside, JSON.stringify(sampleRecord({ outcome: "succeeded", exitCode: 0 })));
    const handoff = JSON.parse(await readFile(handoffFile(), "utf8"));
    handoff.managedStartup.evidencePath = outside;
    await writeFile(handoffFile(), JSON.stringify(handoff));
    const run = await runBaton(["disclose", "acme/api"], { env: { HOME: home } });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`evidencePath ${JSON.stringify(outside)} leaves ~/.baton`);
    expect(run.stderr).toContain("baton env activate acme/api");
  });

  it("a FIFO in place of the evidence file ends at once (exit 1) instead of waiting for a writer", async () => {
    await writeSandbox();
    const evidence = join(home, ".baton", "evidence", "acme__api.json");
    execFileSync("mkfifo", [evidence]);
    const run = await runBaton(["disclose", "acme/api"], { env: { HOME: home }, timeout: HANG_GUARD_MS });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`${evidence} is not a regular file (a FIFO)`);
  });
});
