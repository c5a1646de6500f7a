// `baton dockerfile plan|apply` against a hostile ~/.baton and an edited saved handoff, through the built CLI:
// real symbolic links, real FIFOs, real /bin/sh. Every refusal comes before the first RUN step.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { BATON_BIN, runBaton } from "../../helpers/cli.js";
import { savedHandoff } from "../../helpers/handoff.js";
import { createSandbox, type Sandbox } from "./helpers.js";

let sandbox: Sandbox;
afterEach(async () => {
  await sandbox?.cleanup();
});

/** A FIFO in the way used to block the command forever; this bound turns such a hang into a failure. */
const HANG_GUARD_MS = 20_000;

function batonIn(args: string[], env: Record<string, string> = {}) {
  return runBaton(args, {
    cwd: sandbox.checkout,
    env: { ...sandbox.env, ...env },
    extendEnv: false,
    timeout: HANG_GUARD_MS,
  });
}

/** A Dockerfile whose one RUN step leaves a marker, so a test can tell whether anything ran. */
async function markerDockerfile(): Promise<string> {
  const marker = join(sandbox.home, "ran.txt");
  await sandbox.writeDockerfile(`FROM x\nENV GREETING=hi\nRUN echo ran > ${marker}\n`);
  return marker;
}

async function writeHandoff(handoff: unknown): Promise<void> {
  await mkdir(join(sandbox.home, ".baton", "handoffs"), { recursive: true, mode: 0o700 });
  await writeFile(join(sandbox.home, ".baton", "handoffs", "acme__api.json"), JSON.stringify(handoff));
}

describe("a symbolic link under ~/.baton stops apply before any RUN step", () => {
  it.each([
    ["state", "folder"],
    ["state/dockerfile", "folder"],
    ["state/dockerfile/scripts", "folder"],
    ["state/dockerfile/acme__api.json", "file"],
    ["state/dockerfile/acme__api.lock", "file"],
    ["state/dockerfile-environment.json", "file"],
    ["dockerfile-environment.sh", "file"],
  ])(
    "~/.baton/%s as a link to a %s elsewhere: exit 1 naming it and the fix, nothing run or written through it",
    async (name, kind) => {
      sandbox = await createSandbox();
      const marker = await markerDockerfile();
      const baton = join(sandbox.home, ".baton");
      const link = join(baton, name);
      await mkdir(join(link, ".."), { recursive: true, mode: 0o700 });
      const elsewhere = join(sandbox.home, "elsewhere");
      if (kind === "folder") await mkdir(elsewhere);
      else await writeFile(elsewhere, "precious");
      await symlink(elsewhere, link);

      const run = await batonIn(["dockerfile", "apply", "acme/api", "--file", "Dockerfile"]);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain(`${link} is a symbolic link`);
      expect(run.stderr).toMatch(/Remove (the link|it)/);
      expect(existsSync(marker)).toBe(false);
      if (kind === "folder") expect(await readdir(elsewhere)).toEqual([]);
      else expect(await readFile(elsewhere, "utf8")).toBe("precious");
    },
  );

  it("symbolic links planted under the lock's temporary name (acme__api.lock.<pid>.tmp) are not written through", async () => {
    sandbox = await createSandbox();
    await markerDockerfile();
    const stateDir = join(sandbox.home, ".baton", "state", "dockerfile");
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    const victim = join(sandbox.home, "victim");
    await writeFile(victim, "precious");
    // bash waits for a line, then execs the CLI under the same pid: the link exists before the CLI starts.
    const cli = [process.execPath, BATON_BIN, "dockerfile", "apply", "acme/api", "--file", "Dockerfile"];
    const child = execa("bash", ["-c", 'read -r _ && exec "$@"', "bash", ...cli], {
      cwd: sandbox.checkout,
      env: sandbox.env,
      extendEnv: false,
      reject: false,
      timeout: HANG_GUARD_MS,
    });
    await symlink(victim, join(stateDir, `acme__api.lock.${child.pid}.tmp`));
    child.stdin?.end("go\n");
    const run = await child;
    expect(await readFile(victim, "utf8")).toBe("precious");
    expect(run.exitCode).toBe(0);
  });

  it("a FIFO in place of the lock ends apply at once (exit 1), running nothing", async () => {
    sandbox = await createSandbox();
    const marker = await markerDockerfile();
    const lock = join(sandbox.home, ".baton", "state", "dockerfile", "acme__api.lock");
    await mkdir(join(lock, ".."), { recursive: true, mode: 0o700 });
    execFileSync("mkfifo", [lock]);
    const run = await batonIn(["dockerfile", "apply", "acme/api", "--file", "Dockerfile"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`${lock} exists and is not a regular file`);
    expect(existsSync(marker)).toBe(false);
  });

  it("a FIFO in place of environment.sh ends plan at once (exit 1) instead of waiting for a writer", async () => {
    sandbox = await createSandbox();
    await markerDockerfile();
    await mkdir(join(sandbox.home, ".baton"), { mode: 0o700 });
    const environment = join(sandbox.home, ".baton", "environment.sh");
    execFileSync("mkfifo", [environment]);
    const run = await batonIn(["dockerfile", "plan", "acme/api", "--file", "Dockerfile"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`${environment} is not a regular file (a FIFO)`);
  });
});

describe("the saved handoff's path rules apply again on every read", () => {
  it("an edited dockerfilePath outside the checkout: plan and apply refuse (exit 1) and read nothing there", async () => {
    sandbox = await createSandbox();
    const outside = join(sandbox.home, "outside", "Dockerfile");
    await mkdir(join(outside, ".."));
    await writeFile(outside, "FROM x\nRUN echo outside-canary-5d1e\n");
    await writeHandoff(savedHandoff(sandbox.checkout, { dockerfilePath: outside }));
    for (const mode of ["plan", "apply"]) {
      const run = await batonIn(["dockerfile", mode, "acme/api"]);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain(`dockerfilePath ${JSON.stringify(outside)} leaves the checkout`);
      expect(run.stderr).toContain("baton env activate acme/api");
      expect(run.stdout + run.stderr).not.toContain("outside-canary-5d1e");
    }
  });

  it("a Dockerfile in the checkout that is a link out of it is refused on read", async () => {
    sandbox = await createSandbox();
    const outside = join(sandbox.home, "outside-Dockerfile");
    await writeFile(outside, "FROM x\nRUN echo outside-canary-5d1e\n");
    await symlink(outside, join(sandbox.checkout, "Dockerfile"));
    await writeHandoff(
      savedHandoff(sandbox.checkout, { dockerfilePath: join(sandbox.checkout, "Dockerfile") }),
    );
    const run = await batonIn(["dockerfile", "plan", "acme/api"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("dockerfilePath goes through a symbolic link out of the checkout");
    expect(run.stdout).not.toContain("outside-canary-5d1e");
  });

  it("a handoff file naming another repository, a relative checkout, or a link in place of the file is refused", async () => {
    sandbox = await createSandbox();
    await sandbox.writeDockerfile("FROM x\n");
    const handoff = savedHandoff(sandbox.checkout, { dockerfilePath: join(sandbox.checkout, "Dockerfile") });
    await writeHandoff({ ...handoff, repository: "acme/web", managedStartup: null });
    const other = await batonIn(["dockerfile", "plan", "acme/api"]);
    expect(other.exitCode).toBe(1);
    expect(other.stderr).toContain("the saved handoff is for acme/web, not acme/api");
    expect(other.stderr).toContain("baton env activate acme/api");

    await writeHandoff({ ...handoff, checkoutPath: "checkouts/acme/api" });
    const relative = await batonIn(["dockerfile", "plan", "acme/api"]);
    expect(relative.exitCode).toBe(1);
    expect(relative.stderr).toContain("checkoutPath");

    const file = join(sandbox.home, ".baton", "handoffs", "acme__api.json");
    const real = join(sandbox.home, "real-handoff.json");
    await writeFile(real, JSON.stringify(handoff));
    await rm(file);
    await symlink(real, file);
    const linked = await batonIn(["dockerfile", "plan", "acme/api"]);
    expect(linked.exitCode).toBe(1);
    expect(linked.stderr).toContain(`${file} is a symbolic link`);
  });
});

describe("the checkout must be a folder", () => {
  it.each([
    [
      ["--checkout", "/nonexistent-baton-checkout"],
      {},
      "--checkout /nonexistent-baton-checkout does not exist",
    ],
    [["--checkout", "~"], {}, '"~" is not expanded here'],
    [["--checkout", "~/checkouts/acme/api"], {}, '"$HOME/checkouts/acme/api"'],
    [["--checkout", "Dockerfile"], {}, "is not a folder"],
    [["--checkout", ""], {}, "--checkout is empty"],
    [
      [],
      { BATON_CHECKOUT_ROOT: "/nonexistent-baton-root" },
      "$BATON_CHECKOUT_ROOT (/nonexistent-baton-root) does not exist",
    ],
    [[], { BATON_CHECKOUT_ROOT: "~/checkouts" }, "$BATON_CHECKOUT_ROOT must be an absolute path"],
  ])("plan and apply %j with %j: exit 1 saying %s, nothing run", async (flags, env, message) => {
    sandbox = await createSandbox();
    const marker = await markerDockerfile();
    for (const mode of ["plan", "apply"]) {
      const run = await batonIn(["dockerfile", mode, "acme/api", "--file", "Dockerfile", ...flags], env);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain(message);
      expect(run.stderr).toMatch(/--checkout/);
      expect(run.stderr).toMatch(/\$BATON_CHECKOUT_ROOT/);
    }
    expect(existsSync(marker)).toBe(false);
  });

  it("a saved handoff whose checkout is gone: exit 1 naming it and --checkout", async () => {
    sandbox = await createSandbox();
    const gone = join(sandbox.home, "gone", "acme", "api");
    await writeHandoff(savedHandoff(gone, { dockerfilePath: join(gone, "Dockerfile") }));
    const run = await batonIn(["dockerfile", "plan", "acme/api"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `the checkout ${gone} recorded in the saved handoff of acme/api does not exist`,
    );
    expect(run.stderr).toContain("--checkout");
  });
});
