// What an operator installs (issue 37 B14): `npm pack` of this checkout, installed with `npm install -g` into a
// fresh prefix, runs `baton --version`, `baton serve` (answering /healthz) and the sandbox-side commands of the
// README's tour (admin sandbox, env activate, dockerfile apply, the startup runner, disclose), all from the
// installed copy; the tarball carries the license, its NOTICE and no build leftovers.
//
// The pack uses --ignore-scripts: `prepare` (scripts/build.mjs) would rebuild dist/, which the test run built
// already (the tests of the built CLI use the same dist/). The install takes the tarball's dependencies from this
// machine's npm cache, asking the configured registry only for what the cache lacks (--prefer-offline): npm's
// --offline needs each package's metadata cached too, and the cache holds the tarballs of package-lock.json's
// versions but not always their metadata. Nothing here names a registry host.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const PACKAGE = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as {
  version: string;
  license: string;
  description: string;
};
const INSTALL_TIMEOUT_MS = 600_000;

let folder: string;
let tarball: string;
let prefix: string;
let env: Record<string, string>;
let serve: ChildProcess | undefined;

/** The machine's environment without npm's own variables (an `npm run` or `npx` above this test sets them). */
function withoutNpmSettings(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !/^npm_/i.test(entry[0]),
    ),
  );
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "baton-packed-"));
  const machine = withoutNpmSettings();
  // The system's PATH, without the checkout's node_modules/.bin, so `baton` can only be the installed one.
  const systemPath = (machine.PATH ?? "")
    .split(delimiter)
    .filter((entry) => !entry.includes("node_modules"))
    .join(delimiter);
  const packed = await execa("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", folder], {
    cwd: PROJECT_ROOT,
    env: { ...machine, PATH: systemPath },
    extendEnv: false,
  });
  tarball = join(folder, (JSON.parse(packed.stdout) as { filename: string }[])[0]!.filename);
  prefix = join(folder, "prefix");
  await execa(
    "npm",
    ["install", "-g", "--prefix", prefix, "--prefer-offline", "--no-audit", "--no-fund", tarball],
    { cwd: folder, env: { ...machine, PATH: systemPath }, extendEnv: false, timeout: INSTALL_TIMEOUT_MS },
  );
  // Baton runs on Node 22 (engines); this machine's system node may be older, so the Node running this test
  // (the project's node devDependency) comes first on PATH, as an operator's Node 22 would.
  const node22 = join(folder, "node22");
  mkdirSync(node22);
  symlinkSync(process.execPath, join(node22, "node"));
  env = {
    PATH: [node22, join(prefix, "bin"), systemPath].join(delimiter),
    HOME: join(folder, "home"),
    XDG_DATA_HOME: join(folder, "data"),
    XDG_CONFIG_HOME: join(folder, "config"),
    LANG: "C.UTF-8",
  };
  mkdirSync(env.HOME!);
}, INSTALL_TIMEOUT_MS + 120_000);

afterAll(async () => {
  if (serve && serve.exitCode === null) {
    const exited = new Promise((resolve) => serve!.once("exit", resolve));
    serve.kill("SIGTERM");
    await exited;
  }
  // The prefix holds some 230 installed packages: removing them takes a while on a loaded machine.
  if (folder) await rm(folder, { recursive: true, force: true });
}, 120_000);

/** The installed `baton`, where `npm install -g --prefix` put it (also first on the PATH its commands see). */
const baton = (args: string[], extra: Record<string, string> = {}) =>
  execa(join(prefix, "bin", "baton"), args, {
    env: { ...env, ...extra },
    extendEnv: false,
    cwd: folder,
    reject: false,
  });

describe("the packed tarball", () => {
  it("holds the license, its NOTICE and the built CLI, and no build leftovers", async () => {
    const listed = (await execa("tar", ["-tzf", tarball])).stdout.split("\n");
    for (const file of [
      "LICENSE",
      "NOTICE",
      "README.md",
      "dist/src/cli/bin.js",
      "dist/runner/baton-runner.cjs",
    ])
      expect(listed).toContain(`package/${file}`);
    expect(listed.filter((file) => file.includes(".tsbuildinfo"))).toEqual([]);
    expect(readFileSync(join(PROJECT_ROOT, "LICENSE"), "utf8")).toContain(
      "Apache License\n                           Version 2.0",
    );
    expect(PACKAGE.license).toBe("Apache-2.0");
    expect(PACKAGE.description).not.toMatch(/^Sandbox-side runtime/);
  });

  it("installs a baton on PATH that prints the version", async () => {
    const which = await execa("sh", ["-c", "command -v baton"], { env, extendEnv: false });
    expect(which.stdout).toBe(join(prefix, "bin", "baton"));
    const run = await baton(["--version"]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toBe(PACKAGE.version);
  });

  it("runs baton serve, which answers /healthz, and the sandbox commands against it", async () => {
    const work = mkdtempSync(join(folder, "tour-"));
    const adminToken = randomBytes(32).toString("hex");
    serve = spawn(
      "baton",
      [
        "serve",
        "--db",
        join(work, "baton.sqlite"),
        "--seed",
        join(PROJECT_ROOT, "fixtures", "seeds", "api.json"),
        "--json",
      ],
      { env: { ...env, BATON_ADMIN_TOKEN: adminToken }, cwd: work, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    serve.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const listening = await new Promise<{ url: string; adminUrl: string }>((resolve, reject) => {
      let out = "";
      serve!.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString("utf8");
        if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]!));
      });
      serve!.once("exit", (code) => reject(new Error(`baton serve exited ${code}: ${stderr}`)));
    });
    const health = await fetch(`${listening.url}/healthz`);
    expect(health.status).toBe(200);

    // The README tour's step 4 with the installed baton, as its shell runs it: the agent's HOME, a checkout, the
    // sandbox's variables from `baton admin sandbox`, then the agent's commands.
    const tour = await execa(
      "bash",
      [
        "-c",
        `set -e -o pipefail
export HOME="$WORK/agent"
mkdir -p ~/checkouts/acme && cp -r "$FIXTURES/repos/acme-api" ~/checkouts/acme/api
eval "$(baton admin sandbox --url "$ADMIN_URL" --workspace ws_acme --engagement eng-1)"
baton env activate acme/api >&2
baton dockerfile apply acme/api >&2
echo "runner: $(node ~/.baton/runner/baton-runner.cjs --repo acme/api | head -c 2000 | tr -d '\n')"
baton disclose acme/api --check "npm test=not_run:packed"
echo "runner path: $(baton runner path)"`,
      ],
      {
        env: {
          ...env,
          BATON_ADMIN_TOKEN: adminToken,
          ADMIN_URL: listening.adminUrl,
          WORK: work,
          FIXTURES: join(PROJECT_ROOT, "fixtures"),
        },
        extendEnv: false,
        cwd: work,
        reject: false,
      },
    );
    expect(tour.exitCode, `${tour.stdout}\n${tour.stderr}`).toBe(0);
    expect(existsSync(join(work, "agent", ".baton", "environment.sh"))).toBe(true);
    expect(tour.stdout).toMatch(/^runner: \{.*"outcome": ?"succeeded"/m);
    expect(tour.stdout).toContain("npm test");
    expect(tour.stdout).toContain(`runner path: ${join(prefix, "lib", "node_modules", "baton")}`);
  }, 180_000);
});
