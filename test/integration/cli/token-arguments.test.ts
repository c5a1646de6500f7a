// Issue 37 A1: a token written on the command line is never echoed. `baton login --token btn_…` used to answer
// "'login btn_…' is not a baton command … run: baton start "login btn_…"". The built binary runs with a canary
// token in several shapes; no stdout or stderr (nor --json error) holds it. No service is needed: every shape is
// refused before a request (the API address points nowhere, so a request would fail loudly, not hang).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expectNoCanary } from "../../helpers/canary.js";
import { runBaton } from "../../helpers/cli.js";

const CANARY_SECRET = "CANARYcanary0123456789abcdef";
const CANARY = `btn_${CANARY_SECRET}`;
const home = mkdtempSync(join(tmpdir(), "baton-token-args-"));
const env = { HOME: home, XDG_CONFIG_HOME: join(home, "config"), BATON_API_URL: "https://127.0.0.1:9" };

const SHAPES: [string, string[]][] = [
  ["login --token <token>", ["login", "--token", CANARY]],
  ["login <token>", ["login", CANARY]],
  ["login --token=<token>", ["login", `--token=${CANARY}`]],
  ["login Bearer <token>", ["login", "Bearer", CANARY]],
  ["login -w <id> --token <token>", ["login", "-w", "ws_acme", "--token", CANARY]],
  ["a stray Bearer <token> after a command", ["whoami", "Bearer", CANARY]],
  ["a lone token as a command word", [CANARY]],
  ["an Authorization header as a prompt", [`Authorization: Bearer ${CANARY}`]],
  ["a token as a flag value of a client command", ["tasks", "--status", CANARY]],
  ["a token as an unknown option", ["whoami", `--${CANARY}`]],
];

describe("no message of the client echoes an argument that looks like a token", () => {
  it.each(SHAPES)("%s: refused, the token in no output", async (_shape, args) => {
    const plain = await runBaton(args, { env, input: "" });
    const json = await runBaton([...args, "--json"], { env, input: "" });
    expect(plain.exitCode).toBe(1);
    expect(plain.stderr).toMatch(/^baton/);
    // Neither the token nor its secret part, in any output.
    expectNoCanary([plain.stdout, plain.stderr, json.stdout, json.stderr], [CANARY_SECRET]);
    // Never suggested as a prompt (the old "To start a task with that prompt, run: baton start "login btn_…"").
    expect(plain.stderr).not.toMatch(/baton start "(?!<prompt>)/);
  });

  it("a value after --token is a usage error naming the right forms", async () => {
    const run = await runBaton(["login", "--token", CANARY], { env, input: "" });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("run baton login --token and paste the token when asked");
    expect(run.stderr).toContain("printf '%s' \"$TOKEN\" | baton login");
  });

  it("several words after login that hold no token are still a prompt (reference rule 1)", async () => {
    const run = await runBaton(["login", "page", "is", "broken"], { env, input: "" });
    // Not signed in: the prompt went to `start`, which asks for a sign-in (not a usage error about tokens).
    expect(run.stderr).toContain("not signed in");
  });
});
