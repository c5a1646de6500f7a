// Reference rule 1 as a table: argv in, what `baton` does with it out. Pure (no process): the classifier reads
// the real command table.
import { describe, expect, it } from "vitest";
import { classifyInvocation, scanArguments } from "../../../src/cli/invocation.js";
import { COMMANDS } from "../../../src/cli/registry.js";

type Outcome = "command" | "mistyped" | { start: string[] } | { token: "login" | "other" };

const CASES: [string, string[], Outcome][] = [
  // `<cli> "<prompt>"` or `<cli> start "<prompt>"`
  ["a quoted prompt starts a task", ["fix the flaky test"], { start: ["start", "--", "fix the flaky test"] }],
  ["unquoted words are one prompt", ["fix", "the", "test"], { start: ["start", "--", "fix the test"] }],
  ["start always starts a task", ["start", "stop", "tsk_1"], "command"],
  [
    "flags before the prompt are start's",
    ["-r", "acme/api", "fix it"],
    { start: ["start", "-r", "acme/api", "--", "fix it"] },
  ],
  [
    "flags after the prompt are start's",
    ["fix it", "--no-wait", "-w", "ws_1"],
    { start: ["start", "--no-wait", "-w", "ws_1", "--", "fix it"] },
  ],
  // "a prompt beginning with - goes after --"
  ["-- ends flags", ["--", "-v is broken"], { start: ["start", "--", "-v is broken"] }],
  ["-- makes a single word a prompt", ["--", "refactor"], { start: ["start", "--", "refactor"] }],
  // "a title beginning with - uses the --title=<title> form"
  [
    "--title=<title> keeps a leading dash",
    ["--title=-x", "fix it"],
    { start: ["start", "--title=-x", "--", "fix it"] },
  ],
  [
    "-t takes the next word as the title",
    ["-t", "Login", "fix it"],
    { start: ["start", "-t", "Login", "--", "fix it"] },
  ],
  // "unless it has exactly that command's shape"
  ["stop <id> is stop", ["stop", "tsk_1"], "command"],
  ["stop -w <id> <id> is stop", ["stop", "-w", "ws_1", "tsk_1"], "command"],
  [
    "stop and several words is a prompt",
    ["stop", "the", "flaky", "test"],
    { start: ["start", "--", "stop the flaky test"] },
  ],
  ["show with a spaced id is a prompt", ["show me the logs"], { start: ["start", "--", "show me the logs"] }],
  [
    "show and a quoted phrase is a prompt",
    ["show", "me the logs"],
    { start: ["start", "--", "show me the logs"] },
  ],
  ["tasks --json is tasks", ["tasks", "--json"], "command"],
  ["tasks -n 5 is tasks", ["tasks", "-n", "5", "--status", "replied"], "command"],
  ["tasks and words is a prompt", ["tasks", "are", "slow"], { start: ["start", "--", "tasks are slow"] }],
  ["workspace alone lists", ["workspace"], "command"],
  ["workspace <id> sets the default", ["workspace", "ws_1"], "command"],
  [
    "workspace and two words is a prompt",
    ["workspace", "is", "broken"],
    { start: ["start", "--", "workspace is broken"] },
  ],
  ["reply <id> <text> is reply", ["reply", "tsk_1", "and the docs too"], "command"],
  ["reply with too few words is reply (commander names the missing text)", ["reply", "tsk_1"], "command"],
  ["show alone is show (commander names the missing id)", ["show"], "command"],
  // "a command word followed by a single word is treated as a mistyped command"
  ["whoami and one word is mistyped", ["whoami", "now"], "mistyped"],
  // issue 37 A1: one word after login is most likely the token, whatever its shape: never echoed as mistyped
  ["login and one word is a token argument", ["login", "please"], { token: "login" }],
  [
    "login --token <value> is a token argument",
    ["login", "--token", "btn_CANARY0123456789"],
    { token: "login" },
  ],
  ["login --token=<value> is a token argument", ["login", "--token=abc"], { token: "login" }],
  [
    "login Bearer <token> is a token argument",
    ["login", "Bearer", "btn_CANARY0123456789"],
    { token: "login" },
  ],
  [
    "login and several words is a prompt",
    ["login", "page", "is", "broken"],
    { start: ["start", "--", "login page is broken"] },
  ],
  [
    "a stray Bearer <token> is never a prompt",
    ["whoami", "Bearer", "btn_CANARY0123456789"],
    { token: "other" },
  ],
  ["a lone btn_ token is not an unknown command", ["btn_CANARY0123456789"], { token: "other" }],
  [
    "a Bearer form is not a prompt",
    ["-w", "ws_1", "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9xx"],
    { token: "other" },
  ],
  [
    "a short btn_ word is still a prompt",
    ["rename", "btn_ok", "to", "btn_done"],
    { start: ["start", "--", "rename btn_ok to btn_done"] },
  ],
  ["start takes what it is given", ["start", "Bearer", "btn_CANARY0123456789"], "command"],
  ["logout and one word is mistyped", ["logout", "now"], "mistyped"],
  ["whoami and two words is a prompt", ["whoami", "am", "i"], { start: ["start", "--", "whoami am i"] }],
  // a flag the command does not use: left to commander, which names it and the command
  ["whoami --status x is whoami (an unknown flag)", ["whoami", "--status", "x"], "command"],
  // one bare word that is no command: commander says "unknown command" with a suggestion
  ["an unknown single word is left to commander", ["dislose"], "command"],
  ["help is left to commander", ["help"], "command"],
  ["an unknown flag alone is left to commander", ["--frobnicate"], "command"],
  ["no arguments", [], "command"],
  ["--help", ["--help"], "command"],
  ["-v", ["-v"], "command"],
  // the sandbox and operator commands parse exactly as before
  ["env activate", ["env", "activate", "acme/api"], "command"],
  ["env and words stays env", ["env", "is", "broken"], "command"],
  ["serve and words stays serve", ["serve", "the", "coffee"], "command"],
  ["op get", ["op", "get", "op_1", "--json"], "command"],
];

describe("rule 1: a prompt starting with a command word still starts a task unless it has exactly that command's shape", () => {
  it.each(CASES)("%s: %j", (_rule, argv, expected) => {
    const outcome = classifyInvocation(argv, COMMANDS);
    if (expected === "command") expect(outcome).toEqual({ kind: "command", argv });
    else if (expected === "mistyped") expect(outcome.kind).toBe("mistyped");
    else if ("token" in expected)
      expect(outcome).toEqual({ kind: "token-argument", command: expected.token });
    else expect(outcome).toMatchObject({ kind: "start", argv: expected.start });
  });

  it("a mistyped command carries the command's usage line", () => {
    expect(classifyInvocation(["whoami", "now"], COMMANDS)).toEqual({
      kind: "mistyped",
      command: "whoami",
      words: ["now"],
      usage: "baton whoami [--json]",
    });
  });
});

describe("scanArguments", () => {
  it.each([
    [["-n", "5", "x"], ["-n"], { flags: ["-n", "5"], positionals: ["x"] }],
    [["-n5", "x"], ["-n"], { flags: ["-n5"], positionals: ["x"] }],
    [["--limit=5", "x"], ["--limit"], { flags: ["--limit=5"], positionals: ["x"] }],
    [["--json", "x"], ["-n"], { flags: ["--json"], positionals: ["x"] }],
    [["a", "--", "-b", "--c"], [], { flags: [], positionals: ["a", "-b", "--c"] }],
    [["-"], [], { flags: [], positionals: ["-"] }],
  ])("%j with value flags %j", (args, valueFlags, expected) => {
    expect(scanArguments(args, valueFlags)).toMatchObject(expected);
  });
});
