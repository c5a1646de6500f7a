// `--json` is the machine contract (CONVENTIONS 9): a refusal prints the `{"error": …}` document on stdout, also
// when commander itself refuses the arguments, for every command.
import { describe, expect, it } from "vitest";
import { COMMANDS, type CommandEntry, isGroup } from "../../../src/cli/registry.js";
import { runBaton } from "../../helpers/cli.js";

function leafPaths(entries: readonly CommandEntry[], prefix: string[] = []): string[][] {
  return entries.flatMap((entry) =>
    isGroup(entry) ? leafPaths(entry.subcommands, [...prefix, entry.name]) : [[...prefix, entry.name]],
  );
}

function errorDocument(stdout: string): { code: string; message: string } {
  const parsed = JSON.parse(stdout) as { error: { code: string; message: string } };
  expect(Object.keys(parsed)).toEqual(["error"]);
  return parsed.error;
}

describe("--json with an argument error prints the error document on stdout", () => {
  it.each([
    ["a missing argument", ["op", "get", "--json"], "missing required argument 'id'"],
    ["a misspelt flag", ["env", "activate", "acme/api", "--no-wiat", "--json"], "unknown option '--no-wiat'"],
    [
      "a missing required flag",
      ["env", "apply", "--json"],
      "required option '--overlay <file|->' not specified",
    ],
    ["a flag value out of range", ["env", "activate", "acme/api", "--timeout", "0", "--json"], "--timeout"],
    ["an unknown command", ["nosuch", "--json"], "unknown command 'nosuch'"],
  ])("%s: %j", async (_what, args, says) => {
    const run = await runBaton(args, { env: { HOME: "/nonexistent" } });
    expect(run.exitCode).toBe(1);
    const error = errorDocument(run.stdout);
    expect(error.code).toBe("usage");
    expect(error.message).toContain(says);
    expect(run.stderr).toContain(says);
  });

  it.each(leafPaths(COMMANDS).map((path) => [path.join(" "), path]))(
    "baton %s --json --no-such-flag: exit 1, a usage error document",
    async (_name, path) => {
      const run = await runBaton([...path, "--json", "--no-such-flag"], { env: { HOME: "/nonexistent" } });
      expect(run.exitCode).toBe(1);
      expect(errorDocument(run.stdout).code).toBe("usage");
    },
  );

  it("without --json stdout stays empty", async () => {
    const run = await runBaton(["op", "get"]);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("missing required argument 'id'");
  });
});
