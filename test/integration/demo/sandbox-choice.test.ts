// Issue 21, item 17: when `npm run demo` cannot have a container sandbox it says exactly why: the Docker client's
// own words and where it looked, the fix, and whether the namespace driver would have been a way out (bubblewrap
// and the root filesystem) and why the demo still does not take it. Cheap: the real `docker` client asked about
// an engine at a socket path where none runs (DOCKER_HOST), no demo run. PATHs of symlinks to the real programs
// show a machine without bubblewrap.
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execaSync } from "execa";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error plain ES module script without types
import { whyNoContainer } from "../../../scripts/demo/sandbox-choice.mjs";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "demo-sandbox-choice-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const which = (program: string) => execaSync("which", [program]).stdout.trim();
/** A PATH holding only `programs` (symlinks to the machine's own). */
function pathWith(name: string, programs: string[]): string {
  const bin = join(dir, name);
  execaSync("mkdir", ["-p", bin]);
  for (const program of programs) symlinkSync(which(program), join(bin, program));
  return bin;
}

const noEngine = `unix://${dir}/no-engine.sock`;
const ask = (env: NodeJS.ProcessEnv, argv: string[] = [], uid = 0): string | null =>
  whyNoContainer({ root: PROJECT_ROOT, argv, uid, env });

describe("the demo's fallback says why", () => {
  it("no engine at DOCKER_HOST: says where, quotes the client, names the fix", () => {
    const reason = ask({ ...process.env, DOCKER_HOST: noEngine });
    expect(reason).toMatch(
      new RegExp(
        `^no Docker engine answers at ${noEngine} \\(DOCKER_HOST\\); docker info says: .*Cannot connect to the Docker daemon`,
      ),
    );
    expect(reason).toContain(
      "Start one (`bash scripts/setup-machine.sh` installs and starts one) or point DOCKER_HOST at one.",
    );
  });

  it("as root with bubblewrap and the root filesystem: names the namespace command and why the demo does not take it", () => {
    const rootfs = mkdtempSync(join(dir, "rootfs-"));
    const reason = ask({ ...process.env, DOCKER_HOST: noEngine, BATON_SANDBOX_ROOTFS: rootfs });
    expect(reason).toContain(
      "bubblewrap and the sandbox root filesystem are here, so `baton env test fixtures/repos/acme-api --driver namespace` runs acme/api in a namespace box; this demo drives its box with docker exec and has no namespace mode.",
    );
  });

  it.each([
    [
      "no bwrap on PATH",
      () => ({ PATH: pathWith("docker-only", ["docker"]), BATON_SANDBOX_ROOTFS: dir }),
      "The namespace driver cannot stand in either: no bwrap (bubblewrap) on PATH.",
    ],
    [
      "no root filesystem",
      () => ({
        PATH: pathWith("docker-and-bwrap", ["docker", "bwrap"]),
        BATON_SANDBOX_ROOTFS: join(dir, "none"),
      }),
      "The namespace driver cannot stand in either: no sandbox root filesystem (`npm run sandbox-image` builds it).",
    ],
    [
      "neither",
      () => ({ PATH: pathWith("docker-alone", ["docker"]), BATON_SANDBOX_CACHE: join(dir, "empty-cache") }),
      "The namespace driver cannot stand in either: no bwrap (bubblewrap) on PATH, no sandbox root filesystem (`npm run sandbox-image` builds it).",
    ],
  ])("as root, %s: says the namespace driver cannot stand in, and what it lacks", (_case, env, note) => {
    const reason = ask({ HOME: process.env.HOME, DOCKER_HOST: noEngine, ...env() });
    expect(reason).toMatch(/^no Docker engine answers at /);
    expect(reason?.endsWith(note)).toBe(true);
  });

  it.each([
    [
      "no docker program on PATH",
      { PATH: pathWith("empty", []) },
      [],
      0,
      /there is no docker program on PATH/,
    ],
    ["--no-docker", process.env, ["--no-docker"], 0, /^--no-docker was given$/],
    ["not root", process.env, [], 1000, /^the Docker driver needs root/],
  ])("%s", (_case, env, argv, uid, expected) => {
    expect(ask({ ...env, DOCKER_HOST: noEngine }, argv, uid)).toMatch(expected);
  });

  it("with the machine's engine there is no fallback (null)", () => {
    expect(ask(process.env)).toBeNull();
  });
});
