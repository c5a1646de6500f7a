// `baton env apply` and `baton env show` through the built binary, on a temporary HOME.
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runBaton } from "../../helpers/cli.js";
import { sourceAndReadEnv } from "../../helpers/shell.js";

const CANARY = "canary-Zq9-SECRET-4f1d";
let home: string;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "baton-env-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function overlay(revision = 4, secret = CANARY) {
  return {
    revision,
    repositories: [
      {
        repository: "acme/api",
        repositoryId: "r1",
        variables: [
          { name: "PORT", assigned: "PORT", value: "8080", source: "sandbox.env" },
          { name: "API_KEY", assigned: "API_KEY", value: secret, source: "secret" },
        ],
      },
      {
        repository: "acme/web",
        repositoryId: "r2",
        variables: [
          { name: "PORT", assigned: "REPO_WEB__PORT", value: `${CANARY}-web`, source: "sandbox.env" },
        ],
      },
    ],
  };
}

const expectedVariables = [
  { repository: "acme/api", name: "PORT", assigned: "PORT", source: "sandbox.env" },
  { repository: "acme/api", name: "API_KEY", assigned: "API_KEY", source: "secret" },
  { repository: "acme/web", name: "PORT", assigned: "REPO_WEB__PORT", source: "sandbox.env" },
];

function writeOverlay(document: unknown): string {
  const file = join(home, "overlay.json");
  writeFileSync(file, typeof document === "string" ? document : JSON.stringify(document));
  return file;
}

const env = (extra: Record<string, string> = {}) => ({ env: { HOME: home, ...extra } });
const envFile = () => join(home, ".baton", "environment.sh");

describe("baton env apply", () => {
  it("--json prints {revision, path, variables} and writes environment.sh 0600 in ~/.baton 0700", async () => {
    const run = await runBaton(["env", "apply", "--overlay", writeOverlay(overlay()), "--json"], env());
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ revision: 4, path: envFile(), variables: expectedVariables });
    expect(statSync(envFile()).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, ".baton")).mode & 0o777).toBe(0o700);
    expect(sourceAndReadEnv("bash", envFile(), home).get("API_KEY")).toBe(CANARY);
  });

  it("prints the mapping of original to assigned names, and the next command", async () => {
    const run = await runBaton(["env", "apply", "--overlay", writeOverlay(overlay())], env());
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(/acme\/web\s+PORT\s+-> REPO_WEB__PORT\s+\(sandbox\.env\)/);
    expect(run.stdout).toContain("overlay revision 4, 3 variables");
    expect(run.stdout).toContain('. "$HOME/.baton/environment.sh"');
  });

  it("reads the overlay from standard input with --overlay -", async () => {
    const run = await runBaton(["env", "apply", "--overlay", "-", "--json"], {
      ...env(),
      input: JSON.stringify(overlay(9)),
    });
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout).revision).toBe(9);
  });

  it("requires --overlay and refuses a flag it does not use, naming it", async () => {
    expect((await runBaton(["env", "apply"], env())).stderr).toContain("--overlay");
    const run = await runBaton(["env", "apply", "--overlay", "x", "--frob"], env());
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("--frob");
  });

  const bad: Array<[string, unknown, string]> = [
    ["not JSON", `{"revision": 1, "secret": "${CANARY}"`, "(document)"],
    ["a schema violation (revision missing)", { repositories: [] }, "revision"],
    [
      "a schema violation (unknown source)",
      {
        ...overlay(),
        repositories: [
          {
            ...overlay().repositories[0]!,
            variables: [{ ...overlay().repositories[0]!.variables[0]!, source: "vault" }],
          },
        ],
      },
      "repositories[0].variables[0].source",
    ],
    [
      "a bad variable name",
      {
        ...overlay(),
        repositories: [
          {
            ...overlay().repositories[0]!,
            variables: [{ ...overlay().repositories[0]!.variables[0]!, assigned: "A-B" }],
          },
        ],
      },
      "repositories[0].variables[0].assigned",
    ],
    ["a NUL in a value", overlay(4, `${CANARY}\u0000tail`), "repositories[0].variables[1].value"],
    [
      "an unpaired surrogate in a value",
      `{"revision":1,"repositories":[{"repository":"a/b","repositoryId":"x","variables":[{"name":"A","assigned":"A","value":"${CANARY}\\ud800","source":"secret"}]}]}`,
      "repositories[0].variables[0].value",
    ],
  ];

  it.each(bad)(
    "%s exits 1 naming the field path, never the value, and writes nothing",
    async (_, document, path) => {
      const file = writeOverlay(document);
      for (const json of [false, true]) {
        // With debug logging on, so a log line quoting the input would be caught too.
        const run = await runBaton(
          ["env", "apply", "--overlay", file, ...(json ? ["--json"] : [])],
          env({ BATON_LOG_LEVEL: "debug" }),
        );
        expect(run.exitCode).toBe(1);
        expect(run.stderr).toContain(path);
        expect(run.stdout + run.stderr).not.toContain(CANARY);
        if (json) expect(JSON.parse(run.stdout).error).toMatchObject({ code: "invalid_input", path });
      }
      expect(existsSync(envFile())).toBe(false);
    },
  );

  it("bad input leaves an earlier environment.sh exactly as it was", async () => {
    await runBaton(["env", "apply", "--overlay", writeOverlay(overlay(1))], env());
    const before = readFileSync(envFile());
    const run = await runBaton(["env", "apply", "--overlay", writeOverlay(overlay(2, "x\u0000"))], env());
    expect(run.exitCode).toBe(1);
    expect(readFileSync(envFile())).toEqual(before);
    expect(readdirSync(join(home, ".baton"))).toEqual(["environment.sh"]);
  });

  it("refuses to write through a symbolic link at ~/.baton/environment.sh (exit 1)", async () => {
    mkdirSync(join(home, ".baton"), { mode: 0o700 });
    writeFileSync(join(home, "target"), "keep");
    symlinkSync(join(home, "target"), envFile());
    const run = await runBaton(["env", "apply", "--overlay", writeOverlay(overlay())], env());
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("symbolic link");
    expect(readFileSync(join(home, "target"), "utf8")).toBe("keep");
  });
});

describe("baton env show", () => {
  it("--json prints the same {revision, path, variables} as the apply that wrote the file", async () => {
    await runBaton(["env", "apply", "--overlay", writeOverlay(overlay(6))], env());
    const run = await runBaton(["env", "show", "--json"], env());
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ revision: 6, path: envFile(), variables: expectedVariables });
  });

  it("prints the revision and names as text", async () => {
    await runBaton(["env", "apply", "--overlay", writeOverlay(overlay(6))], env());
    const run = await runBaton(["env", "show"], env());
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("overlay revision 6, 3 variables");
    expect(run.stdout).toMatch(/acme\/api\s+API_KEY\s+-> API_KEY\s+\(secret\)/);
  });

  it("without an environment file exits 1 and names the commands that write one", async () => {
    const run = await runBaton(["env", "show", "--json"], env());
    expect(run.exitCode).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe("not_found");
    expect(run.stderr).toContain("baton env activate");
  });

  it("refuses a file baton did not write (exit 1)", async () => {
    mkdirSync(join(home, ".baton"));
    writeFileSync(envFile(), `export API_KEY='${CANARY}'\n`);
    const run = await runBaton(["env", "show"], env());
    expect(run.exitCode).toBe(1);
    expect(run.stdout + run.stderr).not.toContain(CANARY);
  });

  it("a FIFO or a ~/.baton that is a link in place of the file: exit 1 at once, naming it", async () => {
    mkdirSync(join(home, ".baton"), { mode: 0o700 });
    execFileSync("mkfifo", [envFile()]);
    // A FIFO used to block the command forever; the bound turns such a hang into a failure.
    const fifo = await runBaton(["env", "show"], { ...env(), timeout: 20_000 });
    expect(fifo.exitCode).toBe(1);
    expect(fifo.stderr).toContain(`${envFile()} is not a regular file (a FIFO)`);

    rmSync(join(home, ".baton"), { recursive: true });
    mkdirSync(join(home, "elsewhere"));
    writeFileSync(join(home, "elsewhere", "environment.sh"), "# baton-environment-file: 1\n");
    symlinkSync(join(home, "elsewhere"), join(home, ".baton"));
    const linked = await runBaton(["env", "show"], env());
    expect(linked.exitCode).toBe(1);
    expect(linked.stderr).toContain(`${join(home, ".baton")} is a symbolic link`);
  });
});

describe("canary: a planted secret value appears in no stdout, stderr or log line", () => {
  it.each([[""], ["debug"], ["trace"]])("env apply and env show with BATON_LOG_LEVEL=%j", async (level) => {
    const file = writeOverlay(overlay());
    const runs = [
      await runBaton(["env", "apply", "--overlay", file], env({ BATON_LOG_LEVEL: level })),
      await runBaton(["env", "apply", "--overlay", file, "--json"], env({ BATON_LOG_LEVEL: level })),
      await runBaton(["env", "show"], env({ BATON_LOG_LEVEL: level })),
      await runBaton(["env", "show", "--json"], env({ BATON_LOG_LEVEL: level })),
    ];
    for (const run of runs) {
      expect(run.exitCode).toBe(0);
      expect(run.stdout + run.stderr).not.toContain(CANARY);
    }
    // The canary is really in the file, so its absence above is not an accident of the fixture.
    expect(readFileSync(envFile(), "utf8")).toContain(CANARY);
    if (level === "debug") expect(runs[0]!.stderr).toContain("wrote environment file");
  });
});
