// `baton dockerfile apply` end to end: real /bin/sh and bash processes, real files in a throwaway HOME.

import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { formatDuration } from "../../../src/format/index.js";
import { savedHandoff } from "../../helpers/handoff.js";
import { pollUntil } from "../../helpers/poll.js";
import { createSandbox, type Sandbox } from "./helpers.js";

let sandbox: Sandbox;
afterEach(async () => {
  await sandbox?.cleanup();
});

async function read(path: string): Promise<string> {
  return readFile(path, "utf8");
}

describe("baton dockerfile apply runs RUN steps for real", () => {
  it("shell form in /bin/sh, SHELL switches to bash, exec form has no shell, heredocs run as BuildKit runs them", async () => {
    sandbox = await createSandbox();
    const work = join(sandbox.home, "work");
    await sandbox.writeDockerfile(
      [
        "FROM ubuntu:24.04",
        'ENV GREETING="hi there"',
        "ARG NAME=you",
        `WORKDIR ${work}`,
        'RUN echo "$0|$GREETING|$NAME" > sh.txt',
        'SHELL ["/bin/bash", "-c"]',
        'RUN [[ -n "$BASH_VERSION" ]] && echo bash > bash.txt',
        'RUN ["printf", "%s", "$GREETING"]',
        "RUN <<EOF",
        "echo one > heredoc.txt",
        "echo two >> heredoc.txt",
        "EOF",
        "RUN <<-EOT",
        "\techo tabs > chomp.txt",
        "\tEOT",
        "RUN <<EOF",
        "#!/bin/bash",
        'if [[ "$GREETING" == "hi there" ]]; then echo script > script.txt; fi',
        "EOF",
        "RUN cat <<EOF > cat.txt",
        "from $NAME",
        "EOF",
        "",
      ].join("\n"),
    );
    const run = await sandbox.baton(["dockerfile", "apply", "acme/api", "--file", "Dockerfile", "--json"]);
    expect(run.stderr).toContain("succeeded");
    expect(run.exitCode).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc.status).toBe("applied");
    expect(await read(join(work, "sh.txt"))).toBe("/bin/sh|hi there|you\n");
    expect(await read(join(work, "bash.txt"))).toBe("bash\n");
    const exec = doc.steps.find((s: { instruction: string }) => s.instruction.startsWith('RUN ["printf"'));
    expect(exec.outputTail).toBe("$GREETING");
    expect(await read(join(work, "heredoc.txt"))).toBe("one\ntwo\n");
    expect(await read(join(work, "chomp.txt"))).toBe("tabs\n");
    expect(await read(join(work, "script.txt"))).toBe("script\n");
    expect(await read(join(work, "cat.txt"))).toBe("from you\n");
    // Only ENV is persisted, not ARG, and bash reads the value back unchanged.
    const env = `${sandbox.home}/.baton/dockerfile-environment.sh`;
    const sourced = await execa("bash", ["-c", `. "${env}" && printf '%s|%s' "$GREETING" "\${NAME-unset}"`]);
    expect(sourced.stdout).toBe("hi there|unset");
  });

  it("a failing step stops the run and names it; a re-run resumes after the last success; then nothing runs twice", async () => {
    sandbox = await createSandbox();
    const log = join(sandbox.home, "log.txt");
    const flag = join(sandbox.home, "flag");
    await sandbox.writeDockerfile(
      [
        "FROM x",
        `RUN echo a >> ${log}`,
        `RUN test -f ${flag} || { echo missing flag; exit 3; }`,
        `RUN echo c >> ${log}`,
        "",
      ].join("\n"),
    );
    const first = await sandbox.baton(["dockerfile", "apply", "acme/api", "--file", "Dockerfile"]);
    expect(first.exitCode).toBe(1);
    expect(first.stdout).toMatch(
      /Step 3 \(line 3, RUN test -f .*\) failed with exit 3; 1 later RUN step not run\./,
    );
    expect(first.stdout).toContain("missing flag");
    expect(first.stderr).toMatch(/\[4\/4\] line 4 .*: not run/);
    expect(await read(log)).toBe("a\n");
    const state = JSON.parse(
      await read(join(sandbox.home, ".baton", "state", "dockerfile", "acme__api.json")),
    );
    expect(state.lastRun.status).toBe("failed");
    expect(state.lastRun.steps.map((s: { status: string }) => s.status)).toEqual([
      "skipped",
      "succeeded",
      "failed",
      "not_run",
    ]);
    expect(state.lastRun.steps[2]).toMatchObject({ line: 3, exitCode: 3, outputTail: "missing flag\n" });
    // The step line shows the recorded duration in the one format the disclosure uses ("23 ms", never "0.0s").
    expect(first.stderr).toContain(`: succeeded in ${formatDuration(state.lastRun.steps[1].durationMs)}`);

    await execa("touch", [flag]);
    const second = await sandbox.baton(["dockerfile", "apply", "acme/api", "--file", "Dockerfile", "--json"]);
    expect(second.exitCode).toBe(0);
    const statuses = JSON.parse(second.stdout).steps.map((s: { status: string }) => s.status);
    expect(statuses).toEqual(["skipped", "already_applied", "succeeded", "succeeded"]);
    expect(await read(log)).toBe("a\nc\n");

    const third = await sandbox.baton(["dockerfile", "apply", "acme/api", "--file", "Dockerfile"]);
    expect(third.exitCode).toBe(0);
    expect(third.stdout).toContain("already applied for this version; nothing was run");
    expect(await read(log)).toBe("a\nc\n");
  });

  it("a WORKDIR that cannot be created falls back to the checkout root, disclosed", async () => {
    sandbox = await createSandbox();
    const file = join(sandbox.home, "a-file");
    await (await import("node:fs/promises")).writeFile(file, "");
    await sandbox.writeDockerfile(`FROM x\nWORKDIR ${file}/sub\nRUN pwd\n`);
    const run = await sandbox.baton(["dockerfile", "apply", "acme/api", "--file", "Dockerfile", "--json"]);
    expect(run.exitCode).toBe(0);
    const step = JSON.parse(run.stdout).steps[2];
    expect(step.outputTail).toBe(`${sandbox.checkout}\n`);
    expect(step.notes).toContain(
      `WORKDIR ${file}/sub could not be created (ENOTDIR): ran in the checkout root`,
    );
  });

  it("a step over its timeout is stopped, with its process group, and recorded as timed out", async () => {
    sandbox = await createSandbox();
    await sandbox.writeDockerfile("FROM x\nRUN sleep 30 & sleep 30\nRUN echo never\n");
    const started = Date.now();
    const run = await sandbox.baton([
      "dockerfile",
      "apply",
      "acme/api",
      "--file",
      "Dockerfile",
      "--step-timeout",
      "1",
      "--json",
    ]);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(run.exitCode).toBe(1);
    const doc = JSON.parse(run.stdout);
    expect(doc.failedStep.status).toBe("timed_out");
    expect(doc.steps[2].status).toBe("not_run");
  });

  it("one apply per repository at a time: a second one exits 1 naming the first; a dead owner's lock is taken over", async () => {
    sandbox = await createSandbox();
    const marker = join(sandbox.home, "first-started");
    await sandbox.writeDockerfile(`FROM x\nRUN touch ${marker} && sleep 3\n`);
    const lock = join(sandbox.home, ".baton", "state", "dockerfile", "acme__api.lock");
    const first = sandbox.baton(["dockerfile", "apply", "acme/api", "--file", "Dockerfile"]);
    await pollUntil(
      () => existsSync(marker),
      (exists) => exists,
      { timeoutMs: 30_000, intervalMs: 50 },
    );
    expect(existsSync(marker)).toBe(true);
    const owner = (await read(lock)).trim();
    const second = await sandbox.baton(["dockerfile", "apply", "acme/api", "--file", "Dockerfile", "--json"]);
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(`another baton dockerfile apply acme/api is running (pid ${owner})`);
    expect((await first).exitCode).toBe(0);
    expect(existsSync(lock)).toBe(false);

    // A lock left by a process that no longer exists (pid far above pid_max) does not block the next apply.
    await writeFile(lock, "99999999\n");
    await sandbox.writeDockerfile("FROM x\nRUN echo again\n");
    const after = await sandbox.baton(["dockerfile", "apply", "acme/api", "--file", "Dockerfile"]);
    expect(after.exitCode).toBe(0);
    expect(existsSync(lock)).toBe(false);
  });

  it("a canary secret echoed by RUN steps appears in no record, output or file", async () => {
    sandbox = await createSandbox();
    const canary = "canary-4f9c2e7b1d8a6035";
    const manifestCanary = "mAnIfEsT-7d21c9e04b3a";
    await sandbox.writeDockerfile(
      [
        "FROM x",
        "RUN echo token=$SERVICE_API_TOKEN; echo raw $PAYMENT_X",
        'RUN echo "$SERVICE_API_TOKEN" >&2; echo "$BATON_TURN_TOKEN"; echo "raw $PAYMENT_X"; exit 4',
        "",
      ].join("\n"),
    );
    const { mkdir, writeFile } = await import("node:fs/promises");
    await mkdir(join(sandbox.home, ".baton"), { recursive: true, mode: 0o700 });
    // The environment file's manifest marks PAYMENT_X as a secret although its name does not say so.
    await writeFile(
      join(sandbox.home, ".baton", "environment.sh"),
      "# baton-environment-file: 1\n# baton-overlay-revision: 1\n# baton-variable: acme/api PAYMENT_X PAYMENT_X secret\n",
    );
    const extra = {
      SERVICE_API_TOKEN: canary,
      PAYMENT_X: manifestCanary,
      BATON_TURN_TOKEN: `${canary}-turn`,
    };
    const human = await sandbox.baton(["dockerfile", "apply", "acme/api", "--file", "Dockerfile"], extra);
    const json = await sandbox.baton(
      ["dockerfile", "apply", "acme/api", "--file", "Dockerfile", "--json"],
      extra,
    );
    const plan = await sandbox.baton(
      ["dockerfile", "plan", "acme/api", "--json", "--build-arg", `NPM_TOKEN=${canary}`],
      extra,
    );
    expect(human.exitCode).toBe(1);
    expect(json.stdout).toContain("[REDACTED:SERVICE_API_TOKEN]");
    expect(json.stdout).toContain("[REDACTED:PAYMENT_X]");
    const everything = [
      human.stdout,
      human.stderr,
      json.stdout,
      json.stderr,
      plan.stdout,
      plan.stderr,
      await sandbox.batonFiles(),
    ].join("\n");
    expect(everything).not.toContain(canary);
    expect(everything).not.toContain(manifestCanary);
  });

  it("reads the Dockerfile and version from the saved handoff by default", async () => {
    sandbox = await createSandbox();
    const dockerfile = await sandbox.writeDockerfile("FROM x\nRUN true\n", "build.Dockerfile");
    const { mkdir, writeFile } = await import("node:fs/promises");
    await mkdir(join(sandbox.home, ".baton", "handoffs"), { recursive: true, mode: 0o700 });
    const handoff = savedHandoff(sandbox.checkout, { versionId: "ver_42", dockerfilePath: dockerfile });
    await writeFile(join(sandbox.home, ".baton", "handoffs", "acme__api.json"), JSON.stringify(handoff));
    const run = await sandbox.baton(["dockerfile", "apply", "acme/api", "--json"]);
    expect(run.exitCode).toBe(0);
    const doc = JSON.parse(run.stdout);
    expect(doc).toMatchObject({
      versionId: "ver_42",
      dockerfile,
      checkout: sandbox.checkout,
      status: "applied",
    });
    expect(doc.steps.every((s: { versionId: string }) => s.versionId === "ver_42")).toBe(true);
  });

  it("usage errors exit 1 and say what to fix", async () => {
    sandbox = await createSandbox();
    await sandbox.writeDockerfile("FROM x\n");
    const slug = await sandbox.baton(["dockerfile", "plan", "not-a-slug", "--file", "Dockerfile"]);
    expect(slug.exitCode).toBe(1);
    expect(slug.stderr).toContain("owner/name");
    const arg = await sandbox.baton([
      "dockerfile",
      "plan",
      "acme/api",
      "--file",
      "Dockerfile",
      "--build-arg",
      "NOEQUALS",
    ]);
    expect(arg.exitCode).toBe(1);
    expect(arg.stderr).toContain("--build-arg takes NAME=value");
    const noHandoff = await sandbox.baton(["dockerfile", "apply", "acme/api"]);
    expect(noHandoff.exitCode).toBe(1);
    expect(noHandoff.stderr).toContain("baton env activate acme/api");
  });

  it("bad input exits 1 with the line named, and runs nothing", async () => {
    sandbox = await createSandbox();
    await sandbox.writeDockerfile(`FROM x\nRUN touch ${sandbox.home}/ran\nENV A="\${B:?B must be set}"\n`);
    const run = await sandbox.baton(["dockerfile", "apply", "acme/api", "--file", "Dockerfile"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("Dockerfile line 3: ");
    expect(run.stderr).toContain("B must be set");
    await expect(read(join(sandbox.home, "ran"))).rejects.toThrow();
  });
});
