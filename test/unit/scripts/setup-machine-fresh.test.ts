// scripts/setup-machine.sh on a fresh machine of this kind: the image ships a Docker client (`docker`) without the
// engine (`dockerd`), and the script must still install docker.io and start the engine. `apt-get`, `docker` and
// `dockerd` are fakes in a temporary folder on a PATH holding nothing else of the machine's: the real ones would
// install packages and start a daemon on the machine running the tests, which a unit test must not do. The fakes
// record what the script asked of them, so the test sees which packages it installed and whether it started dockerd.
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";

/** Real programs the script runs besides the ones it checks for (coreutils, on every machine). */
const BASE_PROGRAMS = ["nohup", "sleep", "tail", "cat", "touch", "cp", "chmod", "awk", "grep"];

let folder: string;

afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** `docker info` answers only once the fake engine has started. */
const DOCKER_CLIENT = 'if [ "$1" = info ]; then [ -e "$RECORD/engine-up" ]; else exit 0; fi';
/** The engine marks itself up, as a real dockerd does once its socket answers. */
const DOCKERD = 'touch "$RECORD/engine-up"; echo started >>"$RECORD/dockerd"';
/** `apt-get install` records its packages and installs the fake engine when docker.io is among them. */
const APT_GET = `if [ "$1" = install ]; then
  echo "$@" >>"$RECORD/apt-get"
  for p in "$@"; do
    if [ "$p" = docker.io ]; then cp "$RECORD/../dockerd.package" "$BIN/dockerd"; chmod +x "$BIN/dockerd"; fi
  done
fi`;
/** PostgreSQL's Debian tools: the cluster exists once created and answers once started. */
const POSTGRES_DOWN = {
  pg_isready: '[ -e "$RECORD/pg-up" ]',
  pg_lsclusters:
    '[ -e "$RECORD/cluster" ] && echo "15 main 5432 down postgres /var/lib/postgresql/15/main log"; exit 0',
  pg_createcluster: 'echo "$@" >>"$RECORD/pg_createcluster"; touch "$RECORD/cluster"',
  pg_ctlcluster: 'echo "$@" >>"$RECORD/pg_ctlcluster"; touch "$RECORD/pg-up"',
  runuser: 'echo "$@" >>"$RECORD/runuser"; cat >>"$RECORD/psql-input"',
  psql: "exit 0",
};
/** A machine whose PostgreSQL already answers: the script only makes sure of the test role. */
const POSTGRES_UP = { ...POSTGRES_DOWN, pg_isready: "exit 0" };
/** bubblewrap and Chromium installed (the script only looks for them). */
const SANDBOX_AND_BROWSER = { bwrap: "exit 0", chromium: "exit 0" };
/** A machine with the Docker engine and PostgreSQL installed and answering. */
const EVERYTHING_UP = {
  docker: "exit 0",
  dockerd: DOCKERD,
  postgres: "exit 0",
  ...POSTGRES_UP,
  ...SANDBOX_AND_BROWSER,
};
/** The script refuses to install without root; the fake says root so the test runs as any user. */
const ID = 'if [ "$1" = -u ]; then echo 0; else exit 1; fi';

function script(record: string, bin: string, body: string): string {
  return `#!/bin/bash\nRECORD=${record}\nBIN=${bin}\n${body}\n`;
}

function fakeMachine(programs: Record<string, string>): { bin: string; record: string } {
  folder = mkdtempSync(join(tmpdir(), "baton-setup-machine-"));
  const bin = join(folder, "bin");
  const record = join(folder, "record");
  mkdirSync(bin);
  mkdirSync(record);
  for (const name of BASE_PROGRAMS) symlinkSync(`/usr/bin/${name}`, join(bin, name));
  writeFileSync(join(folder, "dockerd.package"), script(record, bin, DOCKERD));
  for (const [name, body] of Object.entries({ id: ID, "apt-get": APT_GET, ...programs })) {
    writeFileSync(join(bin, name), script(record, bin, body));
    chmodSync(join(bin, name), 0o755);
  }
  return { bin, record };
}

/** What a fake recorded under `name`, or "" when it was never run. */
function recorded(record: string, name: string): string {
  return existsSync(join(record, name)) ? readFileSync(join(record, name), "utf8") : "";
}

async function runSetup(bin: string, record: string, args: string[] = []) {
  return execa("/bin/bash", [join(PROJECT_ROOT, "scripts", "setup-machine.sh"), ...args], {
    env: {
      PATH: bin,
      BATON_DOCKERD_LOG: join(record, "dockerd.log"),
      BATON_DOCKERD_WAIT_S: "10",
      // Where the PostgreSQL server binary would be: the fake bin folder, so "installed" means the fake is there.
      BATON_PG_BIN: bin,
    },
    extendEnv: false,
    reject: false,
  });
}

describe("scripts/setup-machine.sh on a machine with a Docker client and no engine", () => {
  it("installs docker.io because dockerd is missing, then starts dockerd and waits for it to answer", async () => {
    const { bin, record } = fakeMachine({
      docker: DOCKER_CLIENT,
      postgres: "exit 0",
      ...POSTGRES_UP,
      ...SANDBOX_AND_BROWSER,
    });
    const result = await runSetup(bin, record);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    const installed = readFileSync(join(record, "apt-get"), "utf8").split(/\s+/);
    expect(installed).toContain("docker.io");
    // docker.io is asked for once although two checks (docker, dockerd) name it.
    expect(installed.filter((p) => p === "docker.io")).toHaveLength(1);
    expect(readFileSync(join(record, "dockerd"), "utf8")).toBe("started\n");
    expect(result.stdout).toContain("setup-machine: dockerd is up");
    expect(result.stdout).toContain("setup-machine: Docker engine: installed\n");
  });

  it("does nothing for Docker when the engine is installed and answers", async () => {
    const { bin, record } = fakeMachine(EVERYTHING_UP);
    const result = await runSetup(bin, record);
    expect(result.exitCode).toBe(0);
    const installed = recorded(record, "apt-get");
    expect(installed).not.toContain("docker.io");
    expect(recorded(record, "dockerd")).toBe("");
  });
});

describe("scripts/setup-machine.sh and PostgreSQL", () => {
  it("installs the server when its binary is missing, creates and starts the cluster on loopback, and adds the test role", async () => {
    const { bin, record } = fakeMachine({
      docker: "exit 0",
      dockerd: DOCKERD,
      ...POSTGRES_DOWN,
      ...SANDBOX_AND_BROWSER,
    });
    const result = await runSetup(bin, record);
    expect(result.stderr).toBe("");
    expect(result.exitCode).toBe(0);
    expect(readFileSync(join(record, "apt-get"), "utf8").split(/\s+/)).toContain("postgresql-15");
    expect(readFileSync(join(record, "pg_createcluster"), "utf8")).toBe("15 main\n");
    expect(readFileSync(join(record, "pg_ctlcluster"), "utf8")).toContain("listen_addresses=127.0.0.1");
    expect(readFileSync(join(record, "psql-input"), "utf8")).toContain("CREATE ROLE baton LOGIN CREATEDB");
    expect(result.stdout).toContain("setup-machine: starting PostgreSQL 15 on 127.0.0.1:5432");
    expect(result.stdout).toContain("setup-machine: PostgreSQL and the baton role: installed\n");
  });

  it("neither installs nor starts PostgreSQL when it is there and answers", async () => {
    const { bin, record } = fakeMachine(EVERYTHING_UP);
    const result = await runSetup(bin, record);
    expect(result.exitCode).toBe(0);
    const installed = recorded(record, "apt-get");
    expect(installed).not.toContain("postgresql");
    expect(recorded(record, "pg_ctlcluster")).toBe("");
    expect(recorded(record, "pg_createcluster")).toBe("");
  });
});

// Issue 37 A7: a run on a machine where all is present used to print nothing at all.
const PART_LINES = [
  "setup-machine: Docker engine: ready",
  "setup-machine: bubblewrap: ready",
  "setup-machine: PostgreSQL and the baton role: ready",
  "setup-machine: Chromium: ready",
];

describe("scripts/setup-machine.sh says where each part stands", () => {
  it("prints one ready line per part when everything is there", async () => {
    const { bin, record } = fakeMachine(EVERYTHING_UP);
    const result = await runSetup(bin, record);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.split("\n").filter((line) => / (ready|installed|started)$/.test(line))).toEqual(
      PART_LINES,
    );
  });

  it("--check on a machine missing every part says so, exits 1, and installs or starts nothing", async () => {
    const { bin, record } = fakeMachine({ docker: DOCKER_CLIENT, ...POSTGRES_DOWN });
    const result = await runSetup(bin, record, ["--check"]);
    expect(result.exitCode).toBe(1);
    expect(result.stdout).toBe(
      `${PART_LINES.map((line) => line.replace(/ready$/, "missing (run bash scripts/setup-machine.sh as root)")).join("\n")}`,
    );
    for (const program of ["apt-get", "dockerd", "pg_createcluster", "pg_ctlcluster", "runuser"]) {
      expect(recorded(record, program)).toBe("");
    }
  });

  // This machine, as it is: the real Docker engine, bwrap, PostgreSQL on 127.0.0.1:5432 with the baton role, and
  // Chromium. `--check` changes nothing (the test above shows it installs and starts nothing), so it may run here.
  it("--check on this machine prints the four parts ready and exits 0", async () => {
    const result = await execa("/bin/bash", [join(PROJECT_ROOT, "scripts", "setup-machine.sh"), "--check"], {
      reject: false,
    });
    expect(result.stdout).toBe(PART_LINES.join("\n"));
    expect(result.exitCode).toBe(0);
  });
});
