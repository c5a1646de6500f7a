// `baton env activate` against a hostile ~/.baton and a checkout that is not there, end to end: a real
// `baton serve`, the built CLI, real symbolic links. Every destination is checked before the first write, and
// the checkout before anything is asked of the service.
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { expectNoCanary, readTree } from "../../helpers/canary.js";
import { type BatonRun, runBaton } from "../../helpers/cli.js";
import {
  ACTIVATION_CANARIES,
  ACTIVATION_SEED,
  createSandbox,
  killLeftoverServes,
  LOUD,
  makeSandboxHome,
  type SandboxHome,
  type ServeHandle,
  startServe,
} from "../../helpers/serve.js";

let serve: ServeHandle;
let home: SandboxHome;
const runs: BatonRun[] = [];
let engagements = 0;

async function activate(args: string[] = [], env: Record<string, string> = {}): Promise<BatonRun> {
  const sandbox = await createSandbox(serve, {
    workspaceId: "ws_acme",
    engagementId: `eng_files_${++engagements}`,
  });
  const run = await runBaton(["env", "activate", "acme/api", ...args], {
    env: { ...home.env(sandbox), ...env },
  });
  runs.push(run);
  return run;
}

beforeAll(async () => {
  serve = await startServe({ seed: ACTIVATION_SEED, env: LOUD });
});

afterAll(async () => {
  await serve.stop();
  await killLeftoverServes();
});

beforeEach(async () => {
  runs.length = 0;
  home = await makeSandboxHome({ "acme/api": "acme-api" });
});

afterEach(async () => {
  expectNoCanary(
    [...runs.flatMap((r) => [r.stdout, r.stderr]), serve.output(), await readTree(home.home)],
    ACTIVATION_CANARIES,
  );
  await home.remove();
});

describe("every destination is checked before the first write", () => {
  it.each([
    ["handoffs", "folder"],
    ["handoffs/acme__api.json", "file"],
    ["runner", "folder"],
    ["runner/baton-runner.cjs", "file"],
  ])(
    "~/.baton/%s as a symbolic link to a %s elsewhere: exit 1 naming it, environment.sh not written",
    async (name, kind) => {
      const baton = join(home.home, ".baton");
      const link = join(baton, name);
      await mkdir(join(link, ".."), { recursive: true, mode: 0o700 });
      const elsewhere = join(home.home, "elsewhere");
      if (kind === "folder") await mkdir(elsewhere);
      else await writeFile(elsewhere, "precious");
      await symlink(elsewhere, link);

      const run = await activate();
      expect(run.exitCode).toBe(1);
      // A link out of ~/.baton on runPath's way breaks the handoff's path rules; any other link the writer's.
      expect(run.stderr).toMatch(/symbolic link/);
      expect(run.stderr).toContain(link);
      expect(existsSync(join(baton, "environment.sh"))).toBe(false);
      if (kind === "folder") expect(await readdir(elsewhere)).toEqual([]);
      else expect(await readFile(elsewhere, "utf8")).toBe("precious");
    },
  );

  it("a link inside ~/.baton that stays inside it is refused too: baton writes only real folders", async () => {
    const baton = join(home.home, ".baton");
    await mkdir(join(baton, "real-runner"), { recursive: true, mode: 0o700 });
    await symlink(join(baton, "real-runner"), join(baton, "runner"));
    const run = await activate();
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`${join(baton, "runner")} is a symbolic link`);
    expect(existsSync(join(baton, "environment.sh"))).toBe(false);
    expect(await readdir(join(baton, "real-runner"))).toEqual([]);
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
    [["--checkout", ""], {}, "--checkout is empty"],
    [
      [],
      { BATON_CHECKOUT_ROOT: "/nonexistent-baton-root" },
      "$BATON_CHECKOUT_ROOT (/nonexistent-baton-root) does not exist",
    ],
  ])("activate %j with %j: exit 1 saying %s, nothing written", async (flags, env, message) => {
    const run = await activate(flags, env);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toContain("--checkout");
    expect(run.stderr).toContain("$BATON_CHECKOUT_ROOT");
    expect(existsSync(join(home.home, ".baton"))).toBe(false);
  });

  it("no checkout of the repository under $BATON_CHECKOUT_ROOT: exit 1 naming the path; --json prints the error", async () => {
    const root = join(home.home, "other-root");
    await mkdir(root);
    const run = await activate(["--json"], { BATON_CHECKOUT_ROOT: root });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`no checkout of acme/api at ${join(root, "acme", "api")}`);
    expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: "not_found" } });
  });
});
