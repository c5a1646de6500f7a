// The whole agent flow inside a real container sandbox, through `baton/testing` (as a repository's own CI would
// use it): activate both fixture repositories (names qualified), new shells inherit the environment without
// sourcing by hand, apply the Dockerfile, run the startup runner, request a capability, disclose; the evidence
// and disclosure come back out, and the secrets' real values exist nowhere in the box or its output.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BatonSandbox, startSandbox } from "../../src/testing/index.js";
import { ACTIVATION_CANARIES, ACTIVATION_SEED, FIXTURES } from "../helpers/serve.js";

describe("the agent flow in a container sandbox (baton/testing)", () => {
  let sandbox: BatonSandbox;
  const outputs: string[] = [];
  const run = async (script: string) => {
    const result = await sandbox.exec(script);
    outputs.push(result.stdout, result.stderr);
    return result;
  };

  beforeAll(async () => {
    sandbox = await startSandbox({
      checkout: join(FIXTURES, "repos", "acme-api"),
      repository: "acme/api",
      extraCheckouts: { "acme/web": join(FIXTURES, "repos", "acme-web") },
      seed: JSON.parse(readFileSync(ACTIVATION_SEED, "utf8")),
      serviceEnv: { BATON_LOG_LEVEL: "debug" },
    });
  }, 120_000);

  afterAll(async () => {
    await sandbox?.stop();
  });

  it("activates both repositories; the later collision gets the qualified name", async () => {
    const api = await sandbox.activate("acme/api");
    const web = await sandbox.activate("acme/web");
    outputs.push(JSON.stringify(api), JSON.stringify(web));
    const names = (op: Record<string, unknown>) =>
      ((op.result as { variables: { repository: string; name: string; assigned: string }[] }).variables ?? [])
        .filter((v) => v.name === "PAYMENTS_KEY")
        .map((v) => `${v.repository}:${v.assigned}`)
        .sort();
    expect(api.state).toBe("succeeded");
    expect(names(web)).toEqual(["acme/api:PAYMENTS_KEY", "acme/web:REPO_WEB__PAYMENTS_KEY"]);
  });

  // Each shell is the exec'd process itself (no outer shell that could have sourced the file for it); the
  // login shell runs without BASH_ENV, so /etc/profile.d alone must bring the variables in.
  it.each([
    ["a login shell (/etc/profile.d)", ["env", "-u", "BASH_ENV", "bash", "-lc"]],
    ["bash -c (BASH_ENV)", ["bash", "-c"]],
    ["an interactive bash (/etc/bash.bashrc)", ["env", "-u", "BASH_ENV", "bash", "-ic"]],
    ["an interactive sh (ENV)", ["sh", "-ic"]],
  ])("%s inherits the activated environment without sourcing by hand", async (_what, shell) => {
    const result = await sandbox.exec([...shell, 'echo "$LOG_LEVEL|$REPO_WEB__PAYMENTS_KEY"']);
    outputs.push(result.stdout, result.stderr);
    const [logLevel, placeholder] = result.stdout.trim().split("\n").at(-1)!.split("|");
    expect(logLevel).toBe("debug");
    expect(placeholder).toMatch(/^baton-secret-sec_[0-9a-f]{32}$/);
  });

  // The repository record's sandbox.env (LOG_LEVEL here) is the box's own environment from its creation; what
  // activation adds later (the placeholder) reaches only shells that read the hooks.
  it("a shell that does not read the hooks (sh -c) does not see them: the variables come from the file", async () => {
    const result = await sandbox.exec([
      "env",
      "-u",
      "ENV",
      "-u",
      "BASH_ENV",
      "sh",
      "-c",
      'echo "[$REPO_WEB__PAYMENTS_KEY|$LOG_LEVEL]"',
    ]);
    expect(result.stdout).toBe("[|debug]\n");
  });

  it("applies the Dockerfile: its ENV reaches every new shell", async () => {
    const applied = await sandbox.applyDockerfile("acme/api");
    outputs.push(JSON.stringify(applied));
    expect((await run('echo "$APP_ENV"')).stdout).toBe("development\n");
  });

  it("runs the startup runner; the evidence comes back out", async () => {
    const evidence = await sandbox.runStartup("acme/api");
    outputs.push(JSON.stringify(evidence));
    expect(evidence).toMatchObject({ outcome: "succeeded", exitCode: 0, repository: "acme/api" });
    const saved = JSON.parse(await sandbox.readFile("/home/agent/.baton/evidence/acme__api.json"));
    expect(saved).toEqual(evidence);
  });

  it("requests a capability and discloses; the disclosure names the version and the startup outcome", async () => {
    const request = await run(
      "baton env request-capability --repo acme/api --capability registry_access --target https://npm.acme.test/pkg --reason 'npm install needs the private registry' --json",
    );
    expect(request.exitCode).toBe(0);
    expect(JSON.parse(request.stdout)).toMatchObject({
      request: { status: "open", target: "npm.acme.test" },
    });
    const disclosure = await sandbox.disclose("acme/api", ["npm test=passed"]);
    outputs.push(JSON.stringify(disclosure));
    expect(String(disclosure.markdown)).toContain("envv_api_1");
    expect(String(disclosure.markdown)).toContain("succeeded");
  });

  it("holds no secret value: the container's environment, its files and every output are free of the canaries", async () => {
    const inspect = execFileSync("docker", ["inspect", sandbox.containerId], { encoding: "utf8" });
    const files = execFileSync(
      "bash",
      // Only /home, not the whole container (`docker export` streamed the image's root filesystem too and, under
      // load, took most of the test's minute).
      ["-c", `docker cp ${sandbox.containerId}:/home - | tar -xO --wildcards 'home/*' 2>/dev/null || true`],
      {
        encoding: "utf8",
        maxBuffer: 512 * 1024 * 1024,
      },
    );
    expect(files).toContain("baton-secret-sec_"); // the placeholders are there
    for (const text of [inspect, files, sandbox.serviceLog(), ...outputs])
      for (const canary of ACTIVATION_CANARIES) expect(text).not.toContain(canary);
  });
});
