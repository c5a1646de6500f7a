// Every flag and exit code of whoami, workspace, tasks, show and stop (reference section 4, "Command-line client"),
// through the real binary against a real `baton serve`, signed in by piped token. Seeded tokens are never logged
// out here (logout revokes); the canary check at the end reads every output and every file the client left.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { runBaton } from "../../helpers/cli.js";
import { pollUntil } from "../../helpers/poll.js";
import { TOKENS } from "../api/harness.js";
import { type ClientRig, startClientRig } from "./rig.js";

let rig: ClientRig;
/** Owner of ws_acme and member of ws_beta, signed in with ws_acme as the default. */
let owner: string;
let taskId: string;

async function api(method: string, path: string, body?: unknown, key?: string) {
  const response = await fetch(`${rig.serve.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${TOKENS.owner}`,
      "content-type": "application/json",
      ...(key ? { "idempotency-key": key } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: each test reads the shape the reference gives
  const answer: any = response.status === 204 ? undefined : await response.json();
  return { status: response.status, body: answer };
}

async function startTask(prompt: string, key: string): Promise<string> {
  const started = await api("POST", API_PATHS.tasks("ws_acme"), { prompt, repo: "acme/api" }, key);
  expect(started.status).toBe(202);
  return started.body.task.id as string;
}

beforeAll(async () => {
  rig = await startClientRig();
  owner = await rig.newHome();
  const login = await rig.login(owner, TOKENS.owner, ["-w", "ws_acme"]);
  expect(login.exitCode, login.stderr).toBe(0);
  taskId = await startTask("fix the login page\nit shows a blank screen", "client-commands-1");
  // The manual agent's turn can be answered once the engine has handed it over: poll until it takes the answer.
  const answered = await pollUntil(
    () =>
      runBaton(
        [
          "admin",
          "task",
          "answer",
          taskId,
          "--url",
          rig.serve.adminUrl,
          "--reply",
          "Fixed: the page renders.",
        ],
        { env: { BATON_ADMIN_TOKEN: rig.serve.adminToken } },
      ),
    (run) => run.exitCode === 0,
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  expect(answered.exitCode, answered.stderr).toBe(0);
}, 90_000);

afterAll(async () => {
  await rig?.serve.stop();
});

describe("exit codes and flags (reference section 4)", () => {
  // [what, args, exit code, text on stdout or stderr]
  const CASES: [string, string[], number, string][] = [
    ["whoami: the user and workspaces, default marked", ["whoami"], 0, "* ws_acme"],
    ["whoami names the user", ["whoami"], 0, "Olive Owner (olive)"],
    [
      "whoami: a flag it does not use names the flag and the command",
      ["whoami", "--status", "x"],
      1,
      "baton whoami: unknown option '--status'",
    ],
    ["whoami and one word is a mistyped command", ["whoami", "now"], 1, "is not a baton command"],
    ["workspace: lists the default", ["workspace"], 0, "* ws_acme"],
    ["workspace --json is not one of its flags", ["workspace", "--json"], 1, "unknown option '--json'"],
    ["workspace <id> not yours is refused", ["workspace", "ws_aaa_other"], 1, "not one of your workspaces"],
    ["tasks: the table", ["tasks"], 0, "fix the login page"],
    ["tasks --status replied", ["tasks", "--status", "replied"], 0, "replied"],
    [
      "tasks --status of no such status: the service's reason",
      ["tasks", "--status", "bogus"],
      1,
      "invalid_status",
    ],
    ["tasks -n 0 is out of range", ["tasks", "-n", "0"], 1, "1 to 100"],
    ["tasks --limit 101 is out of range", ["tasks", "--limit", "101"], 1, "1 to 100"],
    ["tasks -n x is not a number", ["tasks", "-n", "x"], 1, "1 to 100"],
    ["tasks -n 100 is allowed", ["tasks", "-n", "100"], 0, "ID"],
    ["tasks -w of another's workspace: not found", ["tasks", "-w", "ws_aaa_other"], 1, "404 not_found"],
    ["tasks -w ws_beta: none there", ["tasks", "-w", "ws_beta"], 0, "No tasks."],
    ["tasks --no-wait is start's flag", ["tasks", "--no-wait"], 1, "baton tasks: unknown option '--no-wait'"],
    ["show: unknown task", ["show", "task_nope"], 1, "no task task_nope in workspace ws_acme"],
    ["show: missing id", ["show"], 1, "missing required argument 'task-id'"],
    ["show --status is not its flag", ["show", "x", "--status", "y"], 1, "unknown option '--status'"],
    ["stop: unknown task", ["stop", "task_nope"], 1, "404 not_found"],
    ["stop --json is not its flag", ["stop", "task_nope", "--json"], 1, "unknown option '--json'"],
    ["login --api-url must be https", ["login", "--api-url", "http://127.0.0.1:1"], 1, "BATON_API_URL"],
    // issue 37 A1: one word after login is most likely a token, so it is never echoed or suggested as a prompt
    [
      "login and one word is a token argument",
      ["login", "please"],
      1,
      "baton login takes the token on its standard input",
    ],
    ["login --json is not its flag", ["login", "--json"], 1, "unknown option '--json'"],
    ["logout --token is not its flag", ["logout", "--token"], 1, "unknown option '--token'"],
  ];

  it.each(CASES)("%s: baton %j exits %d", async (_what, args, code, says) => {
    const run = await rig.run(owner, args);
    expect(run.exitCode, run.stderr).toBe(code);
    expect(run.stdout + run.stderr).toContain(says);
  });

  it("whoami --json prints one JSON document: user, workspaces, defaultWorkspace, apiUrl, tokenKind", async () => {
    const run = await rig.run(owner, ["whoami", "--json"]);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      user: { id: expect.any(String), codehostLogin: "olive", name: "Olive Owner" },
      workspaces: [
        { id: "ws_acme", name: "Acme", role: "owner" },
        { id: "ws_beta", name: "Beta", role: "member" },
      ],
      defaultWorkspace: "ws_acme",
      apiUrl: rig.serve.url,
      tokenKind: "personal",
    });
  });

  it("tasks --json prints the API's page: {tasks, nextCursor}; -n limits it", async () => {
    await startTask("a second task", "client-commands-2");
    const run = await rig.run(owner, ["tasks", "--json", "-n", "1"]);
    expect(run.exitCode).toBe(0);
    const page = JSON.parse(run.stdout);
    expect(page.tasks).toHaveLength(1);
    expect(typeof page.nextCursor).toBe("string");
  });

  it("show prints the task and its whole conversation; --json gives {task, messages}", async () => {
    const human = await rig.run(owner, ["show", taskId]);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain(`Task ${taskId}: fix the login page`);
    expect(human.stdout).toContain("  it shows a blank screen");
    expect(human.stdout).toContain("agent:\n  Fixed: the page renders.");
    const json = JSON.parse((await rig.run(owner, ["show", taskId, "--json"])).stdout);
    expect(json.task).toMatchObject({ id: taskId, status: "replied" });
    expect(json.messages.map((m: { role: string }) => m.role)).toEqual(["user", "agent"]);
  });

  it("show pages through a conversation longer than one page (100 entries)", async () => {
    const long = await startTask("a long conversation", "client-commands-long");
    for (let i = 0; i < 104; i++) {
      const sent = await api("POST", API_PATHS.messages("ws_acme", long), { text: `note ${i}` }, `long-${i}`);
      expect(sent.status).toBe(202);
    }
    const json = JSON.parse((await rig.run(owner, ["show", long, "--json"])).stdout);
    expect(json.messages.length).toBeGreaterThanOrEqual(105);
    expect(json.messages.at(-1).body).toBe("note 103");
  }, 60_000);

  it("show of a task started elsewhere explains 409 not_an_api_task (exit 1)", async () => {
    const delegated = await api("POST", API_PATHS.delegate("ws_acme"), { source: "tracker", id: "trk_2" });
    expect(delegated.status).toBe(202);
    const list = await pollUntil(
      () => api("GET", `${API_PATHS.tasks("ws_acme")}?limit=100`),
      (page) => page.body.tasks.some((t: { source: string }) => t.source === "tracker"),
      { timeoutMs: 20_000 },
    );
    const tracker = list.body.tasks.find((t: { source: string }) => t.source === "tracker");
    const run = await rig.run(owner, ["show", tracker.id]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("was started from an issue tracker, so its conversation is kept there");
  }, 30_000);

  it("stop ends a running turn (exit 0); stopping it again is 409 not_running with the service's reason (exit 1)", async () => {
    const running = await startTask("something to stop", "client-commands-stop");
    const stopped = await rig.run(owner, ["stop", running]);
    expect(stopped.exitCode).toBe(0);
    expect(stopped.stdout).toContain(`Stopping task ${running}`);
    const again = await rig.run(owner, ["stop", "-w", "ws_acme", running]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain("409 not_running");
  });

  it("workspace <id> saves a default of yours, and -w overrides it for one command", async () => {
    const home = await rig.newHome();
    await rig.login(home, TOKENS.owner, ["-w", "ws_acme"]);
    const set = await rig.run(home, ["workspace", "ws_beta"]);
    expect(set).toMatchObject({ exitCode: 0, stdout: "Default workspace: ws_beta (Beta)\n" });
    expect(JSON.parse(readFileSync(rig.configFile(home), "utf8")).workspace).toBe("ws_beta");
    expect((await rig.run(home, ["tasks"])).stdout).toContain("No tasks.");
    expect((await rig.run(home, ["tasks", "-w", "ws_acme"])).stdout).toContain("fix the login page");
  });

  it("without a saved default and without -w, tasks says how to pick one (exit 1)", async () => {
    const home = await rig.newHome();
    await rig.login(home, TOKENS.owner);
    const run = await rig.run(home, ["tasks"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("baton workspace <workspace-id>");
  });

  it.each([["whoami"], ["workspace"], ["tasks"], ["show", "task_1"], ["stop", "task_1"]])(
    "not signed in: baton %s exits 1 saying to run baton login",
    async (...args) => {
      const run = await rig.run(await rig.newHome(), args);
      expect(run.exitCode).toBe(1);
      expect(run.stderr).toContain("run `baton login`");
    },
  );

  it("a token the service no longer accepts: exit 1 saying to run baton login", async () => {
    const home = await rig.newHome();
    const token = await rig.newToken("dev@acme.test");
    await rig.login(home, token);
    await fetch(`${rig.serve.url}${API_PATHS.meToken}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${token}` },
    });
    const run = await rig.run(home, ["whoami"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("401 invalid_token");
    expect(run.stderr).toContain("baton login");
  });

  it("the service unreachable: exit 1 naming the address", async () => {
    const run = await rig.run(owner, ["whoami"], { env: { BATON_API_URL: "http://127.0.0.1:9" } });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("could not reach the service at http://127.0.0.1:9");
  }, 30_000);

  it("a corrupt config file: exit 1 naming the file and baton login", async () => {
    const home = await rig.newHome();
    await rig.login(home, TOKENS.dev);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(rig.configFile(home), "{ not json");
    const run = await rig.run(home, ["whoami"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(rig.configFile(home));
    expect(run.stderr).toContain("baton login");
  });
});

describe("rule 1 through the binary", () => {
  it.each([
    ["stop and several words", ["stop", "the", "flaky", "test"]],
    ["a prompt after --", ["--", "-v is broken"]],
    ["several words that are no command", ["fix", "the", "flaky", "test"]],
  ])("%s goes to start, not to the command word (%j)", async (_what, args) => {
    const run = await rig.run(await rig.newHome(), args);
    // start is the follow slice's; whatever it says, the prompt did not reach stop, the version or commander.
    expect(run.stderr).not.toMatch(/too many arguments|unknown command|404/);
    expect(run.stdout).not.toBe("0.2.0\n");
  });

  it("--help lists the client commands first, then the sandbox and operator ones", async () => {
    const run = await rig.run(owner, ["--help"]);
    expect(run.exitCode).toBe(0);
    const at = (name: string) => run.stdout.search(new RegExp(`^  ${name}\\b`, "m"));
    for (const client of [
      "start",
      "reply",
      "show",
      "tasks",
      "stop",
      "whoami",
      "workspace",
      "login",
      "logout",
    ]) {
      expect(at(client)).toBeGreaterThan(0);
      expect(at(client)).toBeLessThan(at("env"));
    }
  });

  it("-v prints the version", async () => {
    expect(await rig.run(owner, ["-v"])).toMatchObject({ exitCode: 0, stdout: "0.2.0\n" });
  });
});

describe("debug logs", () => {
  it("BATON_LOG_LEVEL=debug logs each request, never the token (checked by the canary below)", async () => {
    const run = await rig.run(owner, ["tasks"], { env: { BATON_LOG_LEVEL: "debug" } });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("/v1/workspaces/ws_acme/tasks");
  });
});

describe("canary: no token is ever printed or left in any file but config.json", () => {
  it("every output of this suite, and every file under the homes but config.json", async () => {
    const files = await rig.homeFiles();
    const others = files.filter((file) => !file.endsWith("/baton/config.json"));
    const texts = [...rig.outputs, ...others.map((file) => readFileSync(file, "utf8"))];
    expect(rig.outputs.length).toBeGreaterThan(20);
    for (const token of Object.values(TOKENS)) for (const text of texts) expect(text).not.toContain(token);
    // The config files do hold it: the check above would pass vacuously otherwise.
    expect(readFileSync(rig.configFile(owner), "utf8")).toContain(TOKENS.owner);
  });
});
