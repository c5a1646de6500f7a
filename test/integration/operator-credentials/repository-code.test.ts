// Operator credentials never reach repository code: an operator who follows the by-hand flow with
// BATON_ADMIN_TOKEN, BATON_PROXY_TOKEN and BATON_MATCHER_TOKEN exported runs the startup runner and Dockerfile
// RUN steps; the script, its readiness command and every RUN step write their whole environment to files, and no
// canary (name or value) is in any of them. Real bundled runner, real bash and /bin/sh, real files.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { OPERATOR_CREDENTIALS } from "../../../src/credentials/operator-credentials.js";
import { createSandbox, type Sandbox } from "../dockerfile/helpers.js";
import { makeSandbox, removeSandboxes, runRunner } from "../runner/sandbox.js";

const canaries = () =>
  Object.fromEntries(
    OPERATOR_CREDENTIALS.map((name) => [name, `cAnArY-${name}-${randomBytes(12).toString("hex")}`]),
  ) as Record<(typeof OPERATOR_CREDENTIALS)[number], string>;

/** The operator's shell as the README's by-hand flow leaves it (every credential exported). */
const planted = canaries();

function expectNoCredential(text: string): void {
  for (const [name, value] of Object.entries(planted)) {
    expect(text).not.toContain(value);
    expect(text).not.toContain(`${name}=`);
  }
}

describe("operator credentials never reach repository code", () => {
  let dockerSandbox: Sandbox | undefined;
  afterEach(async () => {
    removeSandboxes();
    await dockerSandbox?.cleanup();
  });

  it("covers BATON_ADMIN_TOKEN, BATON_PROXY_TOKEN and BATON_MATCHER_TOKEN", () => {
    expect([...OPERATOR_CREDENTIALS].sort()).toEqual(
      ["BATON_ADMIN_TOKEN", "BATON_MATCHER_TOKEN", "BATON_PROXY_TOKEN"].sort(),
    );
  });

  it("the startup runner's script and its readiness command see none of them", async () => {
    const sandbox = makeSandbox({
      script: 'env > "$HOME/script-env"\necho started\n',
      checks: [{ kind: "command", command: 'env > "$HOME/readiness-env"', deadlineSeconds: 30 }],
    });
    const run = await runRunner(sandbox, { env: { ...planted, KEPT_VARIABLE: "kept" } });
    expect(run.exitCode).toBe(0);
    const scriptEnv = readFileSync(join(sandbox.home, "script-env"), "utf8");
    const readinessEnv = readFileSync(join(sandbox.home, "readiness-env"), "utf8");
    // The rest of the environment still arrives.
    expect(scriptEnv).toContain("KEPT_VARIABLE=kept");
    expect(readinessEnv).toContain("KEPT_VARIABLE=kept");
    for (const text of [scriptEnv, readinessEnv, run.stdout, run.stderr, run.fileText])
      expectNoCredential(text);
  });

  it("a Dockerfile RUN step sees none of them", async () => {
    dockerSandbox = await createSandbox();
    const seen = join(dockerSandbox.home, "step-env");
    await dockerSandbox.writeDockerfile(`FROM x\nRUN env > ${seen}; echo ran\n`);
    await mkdir(join(dockerSandbox.home, ".baton"), { recursive: true, mode: 0o700 });
    await writeFile(
      join(dockerSandbox.home, ".baton", "environment.sh"),
      "# baton-environment-file: 1\n# baton-overlay-revision: 1\n",
    );
    const run = await dockerSandbox.baton(
      ["dockerfile", "apply", "acme/api", "--file", "Dockerfile", "--json"],
      {
        ...planted,
        KEPT_VARIABLE: "kept",
      },
    );
    expect(run.exitCode).toBe(0);
    const stepEnv = await readFile(seen, "utf8");
    expect(stepEnv).toContain("KEPT_VARIABLE=kept");
    for (const text of [stepEnv, run.stdout, run.stderr, await dockerSandbox.batonFiles()])
      expectNoCredential(text);
  });
});
