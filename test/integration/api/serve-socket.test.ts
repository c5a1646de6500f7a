// The public API through a real `baton serve` child on loopback (the Node adapter, real sockets): a task followed
// to the scripted agent's reply, the concurrency rules with simultaneous connections, Retry-After and 204 on the
// wire, a body over the route's limit, an agent program (the `command` adapter) that runs `baton env activate`
// inside its sandbox, and no canary in any answer or in the service's debug log.
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../src/server/surfaces/api/wire.js";
import { BATON_BIN } from "../../helpers/cli.js";
import { FIXTURES, killLeftoverServes, LOUD, type ServeHandle, startServe } from "../../helpers/serve.js";
import { API_SEED, CANARIES, TOKENS, until } from "./harness.js";
import { createSocketClient } from "./socket-client.js";

let serve: ServeHandle;
let client: ReturnType<typeof createSocketClient>;
let dir: string;

const LOAD_USERS = Array.from({ length: 20 }, (_, i) => `load${i}@acme.test`);
const loadToken = (i: number) => `btn_load-user-${String(i).padStart(2, "0")}-000000000000`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tasks-socket-"));
  const seed = JSON.parse(await readFile(API_SEED, "utf8"));
  seed.agent.rules.unshift({ match: "hold", delayMs: 600_000, reply: "held" });
  seed.workspaces.push({
    id: "ws_load",
    name: "Load",
    plan: { concurrency: 200, queueSize: 200 },
    members: LOAD_USERS.map((email, i) => ({ email, role: "member", token: loadToken(i) })),
    repositories: [{ repository: "load/app" }],
  });
  await writeFile(join(dir, "seed.json"), JSON.stringify(seed));
  serve = await startServe({ seed: join(dir, "seed.json"), env: LOUD });
  client = createSocketClient(serve.url);
});
afterAll(async () => {
  client?.close();
  await serve?.stop();
  await killLeftoverServes();
  await rm(dir, { recursive: true, force: true });
});

describe("the public API over a socket", () => {
  it("starts a task and follows it to the scripted agent's reply", async () => {
    const started = await client.call("POST", API_PATHS.tasks("ws_acme"), {
      token: TOKENS.owner,
      body: { prompt: "tidy the README" },
    });
    expect(started.status).toBe(202);
    const id = started.body.task.id;
    const messages = await until(async () => {
      const page = await client.call("GET", API_PATHS.messages("ws_acme", id), { token: TOKENS.owner });
      return page.body.messages.length === 2 ? page.body.messages : undefined;
    }, "the reply");
    expect(messages[1]).toMatchObject({ role: "agent", kind: "response", body: "Done: tidy the README" });
  });

  it("50 simultaneous starts with one key make one task", async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        client.call("POST", API_PATHS.tasks("ws_load"), {
          token: loadToken(0),
          body: { prompt: "hold one" },
          headers: { "idempotency-key": "one-key" },
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(202));
    expect(new Set(answers.map((a) => a.body.task.id)).size).toBe(1);
    const list = await client.call("GET", `${API_PATHS.tasks("ws_load")}?limit=100`, { token: loadToken(0) });
    expect(list.body.tasks.filter((t: { title: string }) => t.title === "hold one")).toHaveLength(1);
  });

  it("20 people × 6 simultaneous starts: exactly 5 accepted each", async () => {
    const answers = await Promise.all(
      LOAD_USERS.flatMap((_, u) =>
        Array.from({ length: 6 }, (_, i) =>
          client
            .call("POST", API_PATHS.tasks("ws_load"), {
              token: loadToken(u),
              body: { prompt: `hold ${u}.${i}` },
            })
            .then((a) => ({ u, a })),
        ),
      ),
    );
    for (let u = 0; u < 20; u++) {
      const statuses = answers.filter((x) => x.u === u).map((x) => x.a.status);
      // user 0 already holds one task from the previous test
      expect(
        statuses.filter((s) => s === 202),
        `user ${u}`,
      ).toHaveLength(u === 0 ? 4 : 5);
      expect(statuses.filter((s) => s === 429)).toHaveLength(u === 0 ? 2 : 1);
    }
  });

  it("over the rate limit: 429 bad_request with a Retry-After header on the wire", async () => {
    let last = await client.call("DELETE", API_PATHS.meToken, { token: "btn_not-a-real-token-0000000000" });
    expect(last.status).toBe(401);
    for (let i = 0; i <= 120; i++)
      last = await client.call("POST", API_PATHS.stop("ws_load", "task_none"), { token: loadToken(19) });
    expect(last.status).toBe(429);
    expect(last.body.error).toBe("bad_request");
    expect(Number(last.headers["retry-after"])).toBeGreaterThan(0);
  });

  it("DELETE /v1/me/token: 204 with no body on the wire", async () => {
    const made = await serve.admin("/admin/v1/tokens", {
      email: "nolink@acme.test",
      name: "socket",
      lifetimeDays: 30,
    });
    const { token } = (await made.json()) as { token: string };
    const revoked = await client.call("DELETE", API_PATHS.meToken, { token });
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe("");
    expect(revoked.headers["content-length"] ?? "0").toBe("0");
    expect((await client.call("GET", API_PATHS.me, { token })).status).toBe(401);
  });

  it("a body over the route's limit is 413 payload_too_large", async () => {
    const answer = await client.call("POST", API_PATHS.tasks("ws_acme"), {
      token: TOKENS.dev,
      body: { prompt: "x".repeat(700 * 1024) },
    });
    expect(answer.status).toBe(413);
    expect(answer.body.error).toBe("payload_too_large");
  });

  it("no answer and no line of the service's debug log carries a token or secret value", async () => {
    const everything = [...client.seen, serve.output()].join("\n");
    for (const canary of [...CANARIES, ...LOAD_USERS.map((_, i) => loadToken(i))])
      expect(everything).not.toContain(canary);
  });
});

describe("the command adapter: an agent program in a host sandbox", () => {
  let agentServe: ServeHandle;
  let agentClient: ReturnType<typeof createSocketClient>;
  beforeAll(async () => {
    const program = join(dir, "agent.sh");
    // The program plays the agent: it reads the turn, activates the repository with the sandbox's variables, and
    // answers with what activation wrote (names only), plus a canary echo of its turn token that must be redacted.
    await writeFile(
      program,
      `#!/usr/bin/env bash
set -eu
turn=$(cat)
mkdir -p "$BATON_CHECKOUT_ROOT/acme/api"
cp -r "${join(FIXTURES, "repos", "acme-api")}/." "$BATON_CHECKOUT_ROOT/acme/api/"
out=$("${process.execPath}" "${BATON_BIN}" env activate acme/api --json 2>&1) || { printf '{"error":"activate failed: %s"}\\n' "$(echo "$out" | tail -1 | tr -d '"\\\\')"; exit 0; }
rev=$(printf '%s' "$out" | grep -o '"overlayRevision": *[0-9]*' | head -1 | grep -o '[0-9]*$')
n=$(printf '%s' "$turn" | grep -o '"role":"user"' | wc -l)
printf '{"kind":"response","body":"activated acme/api (overlay revision %s) after %s user messages; env file %s; token %s","files":["home/.baton/environment.sh"]}\\n' "$rev" "$n" "$(test -f "$HOME/.baton/environment.sh" && echo present)" "$BATON_TURN_TOKEN"
`,
    );
    await chmod(program, 0o755);
    const seed = JSON.parse(await readFile(join(FIXTURES, "seeds", "activation.json"), "utf8"));
    seed.workspaces[0].members.push({
      email: "agent-user@acme.test",
      role: "member",
      token: "btn_agent-user-0000000000000000",
    });
    await writeFile(join(dir, "activation-seed.json"), JSON.stringify(seed));
    agentServe = await startServe({
      seed: join(dir, "activation-seed.json"),
      args: ["--agent-command", program, "--agent-timeout", "60"],
      env: LOUD,
    });
    agentClient = createSocketClient(agentServe.url);
  });
  afterAll(async () => {
    agentClient?.close();
    await agentServe?.stop();
  });

  it("gets the conversation on stdin and the sandbox variables, runs baton env activate, and its JSON reply is the agent's answer (sanitised)", async () => {
    const token = "btn_agent-user-0000000000000000";
    const started = await agentClient.call("POST", API_PATHS.tasks("ws_acme"), {
      token,
      body: { prompt: "set up the api", repo: "acme/api" },
    });
    expect(started.status).toBe(202);
    const id = started.body.task.id;
    const messages = await until(
      async () => {
        const page = await agentClient.call("GET", API_PATHS.messages("ws_acme", id), { token });
        return page.body.messages.length >= 2 ? page.body.messages : undefined;
      },
      "the agent program's reply",
      60_000,
    );
    expect(messages[1], JSON.stringify(messages[1])).toMatchObject({ role: "agent", kind: "response" });
    expect(messages[1].body, messages[1].body).toMatch(
      /^activated acme\/api \(overlay revision 1\) after 1 user messages; env file present; token \[REDACTED:BATON_TURN_TOKEN\]$/,
    );
    expect(messages[2]).toMatchObject({
      role: "platform",
      body: "Files the agent produced: home/.baton/environment.sh",
    });
    const everything = [...agentClient.seen, agentServe.output()].join("\n");
    for (const canary of ["canary-api-payments-5d1f0b7e-never-print", token])
      expect(everything).not.toContain(canary);
  });
});
