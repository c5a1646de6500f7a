// The command tree as a new user meets it: unknown commands, help, and BATON_LOG_LEVEL.
import { describe, expect, it } from "vitest";
import { runBaton } from "../../helpers/cli.js";

describe("an unknown command is an error with a suggestion, also with --help", () => {
  it.each([
    [["nosuch"], "unknown command 'nosuch'"],
    [["nosuch", "--help"], "unknown command 'nosuch'"],
    [["-h", "nosuch"], "unknown command 'nosuch'"],
    [["dislose", "--help"], "(Did you mean disclose?)"],
    [["env", "activat", "--help"], "(Did you mean activate?)"],
    [["op", "gte", "-h"], "(Did you mean get?)"],
    [["help"], "unknown command 'help'"],
    [["env", "help"], "unknown command 'help'"],
  ])("baton %j exits 1 saying %s", async (args, says) => {
    const run = await runBaton(args);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(says);
    expect(run.stdout).not.toContain("Usage:");
  });

  it.each([
    [["--help"]],
    [["env", "--help"]],
    [["env", "activate", "--help"]],
    [["dockerfile", "apply", "-h"]],
  ])("baton %j prints help and exits 0", async (args) => {
    const run = await runBaton(args);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain("Usage: baton");
  });

  it("the main help lists every command group with its summary", async () => {
    const run = await runBaton(["--help"]);
    for (const name of ["env", "op", "dockerfile", "disclose", "runner", "serve", "admin"]) {
      expect(run.stdout).toMatch(new RegExp(`^  ${name}\\b`, "m"));
    }
  });

  // Issue 37 A6: help that had drifted from the service (PostgreSQL is a store too), left out a flag the
  // command takes, or sent the reader to the very help they were reading.
  it.each([
    [
      ["--help"],
      /serve +run the reference orchestrator .*PostgreSQL \(--database-url\)/s,
      /on an SQLite store/,
    ],
    [["serve", "--help"], /on SQLite \(--db\) or PostgreSQL \(--database-url\)/, /on an SQLite store/],
    [["proxy", "check", "--help"], /--allow-smtp/, /see baton proxy/],
    [
      ["proxy", "--help"],
      /check its policy \(check\), print or rotate its CA \(ca, rotate-ca\)/,
      /see baton proxy --help/,
    ],
  ])("baton %j says what the command does now", async (args, says, never) => {
    const run = await runBaton(args);
    expect(run.exitCode).toBe(0);
    // commander wraps help to the terminal's width: compare the words.
    const words = run.stdout.replace(/\s+/g, " ");
    expect(words).toMatch(says);
    expect(words).not.toMatch(never);
  });

  it("a command's help lists its flags", async () => {
    const run = await runBaton(["env", "activate", "--help"]);
    expect(run.stdout).toContain("--no-wait");
    expect(run.stdout).toContain("--timeout <minutes>");
  });
});

describe("BATON_LOG_LEVEL", () => {
  it.each(["verbose", "DEBUGGING", "1"])(
    "%s is refused, naming the allowed values (exit 1)",
    async (level) => {
      const run = await runBaton(["runner", "path"], { env: { BATON_LOG_LEVEL: level } });
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain("BATON_LOG_LEVEL");
      expect(run.stderr).toContain("fatal, error, warn, info, debug, trace, silent");
      expect(run.stdout).toBe("");
    },
  );

  it.each(["", "silent", "debug", "INFO"])("%j is accepted", async (level) => {
    const run = await runBaton(["runner", "path"], { env: { BATON_LOG_LEVEL: level } });
    expect(run.exitCode).toBe(0);
  });
});

describe("flag ranges are in the refusal", () => {
  it.each([
    [["env", "activate", "acme/api", "--timeout", "0"], "greater than 0 and at most 1440"],
    [["env", "activate", "acme/api", "--timeout", "-3"], "greater than 0 and at most 1440"],
    [["env", "activate", "acme/api", "--timeout", "1441"], "greater than 0 and at most 1440"],
    [
      [
        "admin",
        "sandbox",
        "--url",
        "http://127.0.0.1:1",
        "--workspace",
        "w",
        "--engagement",
        "e",
        "--lease-ttl",
        "0",
      ],
      "from 1 to 31536000",
    ],
    [
      [
        "admin",
        "sandbox",
        "--url",
        "http://127.0.0.1:1",
        "--workspace",
        "w",
        "--engagement",
        "e",
        "--turn-ttl",
        "-1",
      ],
      "from 1 to 31536000",
    ],
    [
      ["admin", "turn", "--url", "http://127.0.0.1:1", "--engagement", "e", "--ttl", "1.5"],
      "from 1 to 31536000",
    ],
    [["serve", "--port", "70000"], "must be 0 to 65535"],
  ])("baton %j says %s (exit 1)", async (args, says) => {
    const run = await runBaton(args);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(says);
    // The refusal never says the refused value is allowed.
    expect(run.stderr).not.toMatch(/between 0 and/);
  });
});
