// `npm run demo -- --agent <id>`: a real coding agent from the catalog (Claude Code, Codex) works a task in a
// Docker box, offline. Its vendor's model API is a fake (src/testing/fake-models) on a network namespace of its own,
// playing a script: activate acme/api, apply its Dockerfile, run its startup, edit AGENTS.md, run `npm test`, ask
// Baton to open the pull request, answer. `baton proxy` pins the vendor's host name to the fake and swaps the model
// key's placeholder for the real key in the vendor's header; the box holds only the placeholder. The demo shows the
// agent's reply, what it did, the pull request's diff and body on the local code host, and where the key went.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createInterface } from "node:readline";
import { chooseDemoAgent, imageBuildArgs, whyNotInImage } from "./agent-choice.mjs";
import { bin, clientFollowing, freeLoopbackPort, root, shellWord } from "./commands.mjs";
import { importQuietly, stdioWithLog } from "./logs.mjs";
import { whyNoContainer } from "./sandbox-choice.mjs";

const REPOSITORY = "acme/api";
const WORKSPACE = "ws_acme";
const REPOSITORY_ID = "repo_acme_api";
const CHECKOUT = `/home/agent/checkouts/${REPOSITORY}`;
const PROMPT = "Say in AGENTS.md what npm test checks, run the check it requires and open a pull request.";
const PR_TITLE = "Say what npm test checks";
export const AGENT_REPLY =
  "I activated acme/api, applied its Dockerfile and ran its startup, then said in AGENTS.md what npm test checks. " +
  `npm test passed, and I asked Baton to open the pull request "${PR_TITLE}".`;
const ENV = '. "$HOME/.baton/environment.sh"';

/** What the fake model says, step by step: the preamble's rules, then the task (tool-mapping.ts fits each intent
 * to the tools the agent offers). */
const SCRIPT = [
  { call: { kind: "shell", command: `baton env activate ${REPOSITORY}` } },
  { call: { kind: "shell", command: `baton dockerfile apply ${REPOSITORY}` } },
  {
    call: { kind: "shell", command: `${ENV} && node ~/.baton/runner/baton-runner.cjs --repo ${REPOSITORY}` },
  },
  { call: { kind: "read", path: `${CHECKOUT}/AGENTS.md` } },
  {
    call: {
      kind: "edit",
      path: `${CHECKOUT}/AGENTS.md`,
      oldText: "Run `npm test` before pushing.",
      newText:
        "Run `npm test` before pushing: it checks the sandbox's environment (DATABASE_URL, APP_ENV, and PAYMENTS_KEY as a proxy placeholder).",
    },
  },
  { call: { kind: "shell", command: `${ENV} && npm test` } },
  {
    call: {
      kind: "mcp",
      tool: "open_pull_request",
      args: {
        title: PR_TITLE,
        body: "AGENTS.md now says what `npm test` checks.",
        draft: false,
        checks: [{ name: "npm test", result: "passed" }],
      },
    },
  },
  { text: AGENT_REPLY },
];

const dist = (...path) => import(join(root, "dist", "src", ...path));
const cacheDir = () =>
  process.env.BATON_SANDBOX_CACHE || join(root, "node_modules", ".cache", "baton-sandbox");

function readImageRecord() {
  try {
    return JSON.parse(readFileSync(join(cacheDir(), "image.json"), "utf8"));
  } catch {
    return undefined;
  }
}

/** Starts a Baton process in a process group of its own (a Ctrl-C reaches the demo alone, which then removes the
 * boxes through the service before stopping it), its log in a file; resolves with the addresses its --json
 * line gives. */
async function startBaton(ctx, name, args, env) {
  const { stdio, close } = stdioWithLog(ctx, name);
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...process.env, ...env },
    stdio,
    detached: true,
  });
  close();
  ctx[name] = child;
  const line = await new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`baton ${name} exited early (${code})`)));
    createInterface({ input: child.stdout }).once("line", resolve);
  });
  const started = JSON.parse(line);
  if (!started.url) throw new Error(`baton ${name} did not start: ${line}`);
  return started;
}

async function api(ctx, method, path, body) {
  const response = await fetch(`${ctx.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ctx.apiToken}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function admin(ctx, method, path, body) {
  const response = await fetch(`${ctx.adminUrl}/admin/v1${path}`, {
    method,
    headers: { "baton-admin-token": ctx.adminToken, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer = await response.json();
  if (!response.ok)
    throw new Error(`${method} /admin/v1${path} answered ${response.status}: ${answer.reason}`);
  return answer;
}

const git = (args, options = {}) => execFileSync("git", args, { encoding: "utf8", ...options });

const CHOOSE = {
  name: "choose the agent from the catalog (src/server/adapters/agents/catalog.ts)",
  async run(ctx) {
    const { AGENT_CATALOG } = await dist("server", "adapters", "agents", "catalog.js");
    const chosen = chooseDemoAgent(ctx.agentId, AGENT_CATALOG);
    if (chosen.error) throw new Error(chosen.error);
    const { entry, api: fakeApi } = chosen;
    Object.assign(ctx, { entry, fakeApi });
    console.log(`${entry.name}: ${entry.package.name}@${entry.package.version}, started as ${entry.bin}`);
    console.log(
      `its model API: ${entry.model.host} (${entry.model.api}); its key: ${entry.model.keyVariable}, sent in the ${entry.model.keyHeader} header`,
    );
  },
};

const BOX = {
  name: "a box for the agent: Docker, and the sandbox image with the agent in its agents layer",
  run(ctx) {
    const without = whyNoContainer({ root, argv: process.argv, uid: process.getuid?.(), env: process.env });
    if (without)
      throw new Error(
        `a real coding agent runs only in a box, and this machine cannot make one: ${without} ` +
          "(`npm run demo` without --agent falls back to a temporary HOME for its scripted agent; a real agent does not)",
      );
    const args = imageBuildArgs(readImageRecord(), process.env);
    console.log(`$ node scripts/build-sandbox-image.mjs ${args.join(" ")}`);
    execFileSync(process.execPath, [join(root, "scripts", "build-sandbox-image.mjs"), ...args], {
      cwd: root,
      stdio: "inherit",
    });
    const image = readImageRecord();
    const missing = whyNotInImage(ctx.entry, image, process.env);
    if (missing) throw new Error(missing);
    console.log(
      `${ctx.entry.name} is installed read-only in ${image.image} at /opt/baton-agents/${ctx.entry.id} (agents: ${image.agents.join(", ")})`,
    );
  },
};

const FAKE = {
  name: "the fake model API: a network namespace of its own, HTTPS with a certificate from a CA only baton proxy trusts",
  async run(ctx) {
    const { generateCa } = await dist("proxy", "ca", "authority.js");
    const { issueLeafPem } = await dist("proxy", "ca", "leaves.js");
    const { createNetnsHost } = await dist("testing", "netns.js");
    const { startFakeInNamespace } = await dist("testing", "fake-models", "index.js");
    const host = ctx.entry.model.host;
    // The proxy refuses its own machine's addresses: the fake sits on another host, a namespace joined by a veth.
    ctx.modelHost = await createNetnsHost({ prefix: "demoagt" });
    const ca = await generateCa();
    const leaf = await issueLeafPem(ca, [host]);
    writeFileSync(join(ctx.tmp, "model-ca.pem"), ca.certPem);
    ctx.fake = await startFakeInNamespace(ctx.modelHost, ctx.tmp, {
      api: ctx.fakeApi,
      script: SCRIPT,
      tls: { key: leaf.keyPem, cert: leaf.certPem },
      port: 443,
    });
    console.log(
      `the fake of ${host} listens on ${ctx.fake.url} in namespace ${ctx.modelHost.name}; its script has ${SCRIPT.length} steps:`,
    );
    for (const [index, step] of SCRIPT.entries()) {
      const call = step.call;
      const said = !call
        ? `answer: ${step.text}`
        : call.kind === "shell"
          ? `run: ${call.command}`
          : call.kind === "mcp"
            ? `call Baton's ${call.tool} (${JSON.stringify(call.args.checks)})`
            : `${call.kind} ${relative(CHECKOUT, call.path)}`;
      console.log(`  ${index + 1}. ${said}`);
    }
  },
};

const PROXY = {
  name: "start baton proxy: the model's host name pinned to the fake, the box's only way out",
  async run(ctx) {
    ctx.adminToken = randomBytes(32).toString("hex");
    ctx.proxyToken = randomBytes(32).toString("hex");
    ctx.adminPort = await freeLoopbackPort();
    const host = ctx.entry.model.host;
    const config = {
      allow: [{ name: "fake-model", cidr: [`${ctx.modelHost.address}/32`] }],
      dns: { hosts: { [host]: [ctx.modelHost.address] } },
      upstreamCaFile: join(ctx.tmp, "model-ca.pem"),
    };
    writeFileSync(join(ctx.tmp, "proxy.json"), JSON.stringify(config, null, 2));
    console.log(`proxy.json: ${JSON.stringify(config).replace(`${ctx.tmp}/`, "")}`);
    const serveUrl = `http://127.0.0.1:${ctx.adminPort}`;
    console.log(`$ baton proxy --serve-url ${serveUrl} --config proxy.json --json`);
    const started = await startBaton(
      ctx,
      "proxy",
      [
        ...["proxy", "--serve-url", serveUrl, "--config", join(ctx.tmp, "proxy.json"), "--host", "127.0.0.1"],
        ...[
          "--state-dir",
          join(ctx.tmp, "proxy-state"),
          "--audit-file",
          join(ctx.tmp, "audit.log"),
          "--json",
        ],
      ],
      { BATON_PROXY_TOKEN: ctx.proxyToken },
    );
    ctx.proxyUrl = started.url;
    console.log(`baton proxy listens on ${ctx.proxyUrl} (its log: proxy.log)`);
  },
};

const SERVE = {
  name: "start baton serve with the agent on the Docker driver (fixture seed, temporary SQLite file)",
  async run(ctx) {
    ctx.db = join(ctx.tmp, "serve.sqlite");
    ctx.work = join(ctx.tmp, "work");
    const seed = join("fixtures", "seeds", "activation.json");
    const args = [
      ...["serve", "--agent", ctx.entry.id, "--sandbox-driver", "docker", "--proxy-url", ctx.proxyUrl],
      ...["--seed", seed, "--db", ctx.db, "--work-dir", ctx.work],
      ...["--admin-listen", `127.0.0.1:${ctx.adminPort}`, "--json"],
    ];
    console.log(`$ baton ${args.map((arg) => shellWord(arg.replace(`${ctx.tmp}/`, ""))).join(" ")}`);
    const started = await startBaton(
      ctx,
      "serve",
      args.map((arg) => (arg === seed ? join(root, seed) : arg)),
      {
        BATON_ADMIN_TOKEN: ctx.adminToken,
        BATON_PROXY_TOKEN: ctx.proxyToken,
      },
    );
    ({ url: ctx.url, adminUrl: ctx.adminUrl } = started);
    console.log(
      `baton serve is listening on ${ctx.url}; its admin API on ${ctx.adminUrl} (its log: serve.log)`,
    );
  },
};

const PUSH = {
  name: `${REPOSITORY} on the local code host: fixtures/repos/acme-api pushed to main, as its developers did`,
  run(ctx) {
    ctx.bare = join(ctx.work, "codehost", WORKSPACE, `${REPOSITORY}.git`);
    const checkout = join(ctx.tmp, "acme-api");
    cpSync(join(root, "fixtures", "repos", "acme-api"), checkout, { recursive: true });
    const author = ["-c", "user.name=Olive Owner", "-c", "user.email=owner@acme.test"];
    mkdirSync(ctx.bare, { recursive: true });
    git(["init", "-q", "--bare", "--initial-branch", "main", ctx.bare]);
    git(["init", "-q", "--initial-branch", "main"], { cwd: checkout });
    git(["add", "-A"], { cwd: checkout });
    git([...author, "commit", "-qm", "acme/api"], { cwd: checkout });
    console.log(`$ git push ${relative(ctx.tmp, ctx.bare)} main`);
    git(["push", "-q", ctx.bare, "main"], { cwd: checkout });
    console.log(
      git(["--git-dir", ctx.bare, "ls-tree", "-r", "--name-only", "main"]).trim().replace(/^/gm, "  "),
    );
  },
};

const SECRET = {
  name: `the model key: a secret of ${REPOSITORY} with the model's host approved (the value is never shown)`,
  async run(ctx) {
    const { entry } = ctx;
    // A made-up key: nothing leaves this machine. Kept in the demo's memory only.
    ctx.modelKey = `demo-model-key-${randomBytes(16).toString("hex")}`;
    const path = `/workspaces/${WORKSPACE}/repos/${REPOSITORY_ID}/secrets/${entry.model.keyVariable}`;
    console.log(
      `$ curl -X PUT "$BATON_URL${path}" -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' \\\n` +
        `    -d "{\\"value\\": \\"$${entry.model.keyVariable}\\", \\"allowedHosts\\": [\\"${entry.model.host}\\"]}"`,
    );
    await api(ctx, "PUT", path, { value: ctx.modelKey, allowedHosts: [entry.model.host] });
    console.log(
      `${entry.model.keyVariable} of ${REPOSITORY} is set; the box gets a placeholder in its place`,
    );
  },
};

const START = {
  name: "start a task with baton start and follow the agent's turn to its reply (the agent runs in the task's box)",
  async run(ctx) {
    const out = await clientFollowing(ctx, ["start", "-r", REPOSITORY, PROMPT]);
    ctx.taskId = /Started task (task_\w+)/.exec(out.all)?.[1];
    if (!ctx.taskId) throw new Error("baton start did not name its task");
    const task = await api(ctx, "GET", `/v1/workspaces/${WORKSPACE}/tasks/${ctx.taskId}`);
    if (!["replied", "pr_open"].includes(task.status))
      throw new Error(`the task is ${task.status}: the turn did not end with a reply`);
  },
};

const ACTIVITY = {
  name: "what the agent did in its turn (GET /v1/workspaces/ws_acme/tasks/<id>/activity)",
  async run(ctx) {
    const { turns } = await api(ctx, "GET", `/v1/workspaces/${WORKSPACE}/tasks/${ctx.taskId}/activity`);
    for (const turn of turns) {
      console.log(`turn ${turn.number} (${turn.state}):`);
      // An agent may announce a tool call and name it in a later update: one line per call, its last name.
      const calls = new Map();
      for (const { kind, data } of turn.records) {
        if (kind === "baton_tool") calls.set(Symbol(), { kind: "baton", title: data?.title ?? data?.tool });
        if (kind !== "tool_call" && kind !== "tool_call_update") continue;
        const known = calls.get(data?.toolCallId);
        if (!known && kind === "tool_call_update") continue;
        calls.set(data.toolCallId, {
          kind: data.kind ?? known?.kind ?? "tool",
          title: data.title ?? known?.title ?? "",
        });
      }
      for (const call of calls.values())
        console.log(`  ${call.kind}: ${String(call.title).split("\n")[0].slice(0, 110)}`);
    }
    // The check's real output went back to the model with the next request: show it was there.
    const after = SCRIPT.findIndex((step) => step.call?.command?.endsWith("npm test")) + 1;
    const checked = ctx.fake.requests().find((request) => request.step === after);
    const summary = JSON.stringify(checked?.body ?? "").match(/# (pass|fail) \d+/g) ?? [];
    console.log(
      `npm test's output, as the agent sent it to the model: ${summary.join(", ") || "(no summary)"}`,
    );
  },
};

const PULL_REQUEST = {
  name: "the pull request on the local code host: the agent's diff, and its body (Baton's disclosure, then the agent's notes)",
  async run(ctx) {
    const { DatabaseSync } = await importQuietly("node:sqlite");
    const store = new DatabaseSync(ctx.db, { readOnly: true });
    const pr = store
      .prepare("SELECT number, branch, title, body, draft, url FROM pull_requests WHERE task_id = ?")
      .get(ctx.taskId);
    store.close();
    if (!pr) throw new Error(`task ${ctx.taskId} opened no pull request`);
    console.log(
      `pull request #${pr.number} "${pr.title}" (${pr.draft ? "draft" : "ready for review"}): ${pr.url}`,
    );
    console.log(`$ git --git-dir ${relative(ctx.tmp, ctx.bare)} diff main ${pr.branch}`);
    process.stdout.write(git(["--git-dir", ctx.bare, "diff", "main", pr.branch]));
    console.log("its body:\n");
    process.stdout.write(`${pr.body.replace(/^/gm, "  ")}\n`);
  },
};

const KEY = {
  name: "the key: the fake model received the real value in its header; the box held only a placeholder",
  async run(ctx) {
    const { entry } = ctx;
    const header = entry.model.keyHeader;
    const expected = header === "authorization" ? `Bearer ${ctx.modelKey}` : ctx.modelKey;
    const requests = ctx.fake.requests();
    const real = requests.filter((request) => request.headers[header] === expected).length;
    const elsewhere = requests.filter((request) =>
      Object.entries(request.headers).some(
        ([name, value]) => name !== header && String(value).includes(ctx.modelKey),
      ),
    ).length;
    console.log(
      `the fake of ${entry.model.host} received ${requests.length} requests: ${real} with the real key in ${header} (not shown), ` +
        `${elsewhere} with it in any other header`,
    );
    if (requests.length === 0 || real !== requests.length || elsewhere !== 0)
      throw new Error("the key did not reach the model API as it should");
    const box = (await admin(ctx, "GET", "/sandboxes")).sandboxes.find((b) => b.engagementId === ctx.taskId);
    if (!box) throw new Error(`no box for task ${ctx.taskId}`);
    console.log(
      `$ POST ${ctx.adminUrl}/admin/v1/sandboxes/${box.sandboxId}/exec {"command": ["printenv", "${entry.model.keyVariable}"]}`,
    );
    const shown = await admin(ctx, "POST", `/sandboxes/${box.sandboxId}/exec`, {
      workspaceId: box.workspaceId,
      engagementId: box.engagementId,
      command: ["printenv", entry.model.keyVariable],
      timeoutSeconds: 30,
    });
    const inBox = shown.stdout.trim();
    if (!/^baton-secret-/.test(inBox) || inBox.includes(ctx.modelKey))
      throw new Error(`the box's ${entry.model.keyVariable} is not a placeholder`);
    console.log(
      `in the box: ${entry.model.keyVariable}=${inBox} (a placeholder; baton proxy swapped it on the way out)`,
    );
  },
};

/** The real-agent flow's steps; the build and the sign-in are the scripted flow's own. */
export function realAgentSteps({ build, token, login }) {
  return [
    build,
    CHOOSE,
    BOX,
    FAKE,
    PROXY,
    SERVE,
    PUSH,
    token,
    login,
    SECRET,
    START,
    ACTIVITY,
    PULL_REQUEST,
    KEY,
  ];
}
