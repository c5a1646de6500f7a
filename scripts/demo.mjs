// `npm run demo`: the local end-to-end demo on embedded defaults. It starts `baton serve` on a free loopback port
// with a fixture seed and a temporary SQLite file, makes a sandbox (when Docker answers: a real container sandbox
// from `baton serve --sandbox-driver docker` on the image `npm run sandbox-image` builds, reachable only through
// the service; otherwise, and it says so, a temporary HOME on this machine) holding a fixture checkout, runs
// `baton env activate` there as an agent would, shows the environment file's names and the saved
// handoff, applies the repository's Dockerfile, runs the startup runner, files a capability request (its e-mail
// goes to a loopback SMTP server started here), runs the check the repository's AGENTS.md requires and prints
// the pull-request disclosure with that check's real result; then, as a person would, it creates a personal
// access token, signs the client in with it (piped, as a script would), starts a task with `baton start` and
// follows it to the scripted agent's reply, replies, stops a running turn with `baton stop` and prints the
// conversation with `baton show`; then it lists the MCP tools and calls whoami and start_task over POST /v1/mcp
// with the same token as a bearer header; then, playing the code host's App, it delivers one signed webhook (an
// issue labelled for the agent) and shows the task it started and the reply posted back on the issue; last, it
// prints the dashboard URL of the task `baton start` started and loads that page in headless Chromium, signed in
// through the e-mailed link, printing its title and conversation entries; then it stops everything, also on
// failure or Ctrl-C. The terminal shows the demo's own steps; the services' JSON log lines go to files in a folder
// it names at the start and keeps (scripts/demo/logs.mjs).
//
// `npm run demo -- --agent <id>` runs a real coding agent from the catalog instead of the scripted one, in a Docker
// box against a fake of its vendor's model API, offline (scripts/demo/real-agent.mjs says how).
//
// The demo is a list of named steps sharing one context. A later capability adds its step to STEPS.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { agentFlag } from "./demo/agent-choice.mjs";
import { deleteThroughService, pruneStoppedService } from "./demo/boxes.mjs";
import { bin, client, freeLoopbackPort, root, shellWord } from "./demo/commands.mjs";
import { openTaskPage } from "./demo/dashboard.mjs";
import { importQuietly, logTails, makeLogDir, stdioWithLog } from "./demo/logs.mjs";
import { startMailCatcher } from "./demo/mail-catcher.mjs";
import { callMcp, callTool } from "./demo/mcp.mjs";
import { realAgentSteps } from "./demo/real-agent.mjs";
import { whyNoContainer } from "./demo/sandbox-choice.mjs";
import { signInLinkFor } from "./demo/web-session.mjs";
import { deliverSigned, demoSeed, labelledIssuePayload } from "./demo/webhook.mjs";

const SEED = join(root, "fixtures", "seeds", "activation.json");
const REPOSITORY = "acme/api";

/** Runs a command where the agent is: `docker exec` into the container sandbox, or a process with the temporary
 * HOME. Returns stdout; throws on a non-zero exit. */
/** `docker exec` arguments into the box: the container holds no turn token or lease, so each command gets the
 * sandbox's variables (`--env NAME` takes the value from the environment, never the argument list). */
function dockerExec(ctx, argv) {
  const names = Object.keys(ctx.boxEnv ?? {}).flatMap((name) => ["--env", name]);
  return ["exec", ...names, "-w", ctx.checkoutInBox, ctx.container, ...argv];
}

function inSandbox(ctx, argv, { quiet = false } = {}) {
  const [command, args] = ctx.container
    ? ["docker", dockerExec(ctx, argv)]
    : [
        argv[0] === "baton" ? process.execPath : argv[0],
        argv[0] === "baton" ? [bin, ...argv.slice(1)] : argv.slice(1),
      ];
  try {
    const out = execFileSync(command, args, {
      env: ctx.container ? { ...process.env, ...ctx.boxEnv } : ctx.sandboxEnv,
      cwd: ctx.container ? root : ctx.checkout,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
    if (!quiet) process.stdout.write(out);
    return out;
  } catch (error) {
    if (error.stdout) process.stdout.write(error.stdout);
    throw new Error(`${argv.slice(0, 3).join(" ")} exited ${error.status}`);
  }
}

/** Runs the built CLI as the agent in the sandbox would; with `env`, on this machine as the operator would. */
function baton(ctx, args, options = {}) {
  // Shown as it can be typed: a reader copies these lines.
  console.log(`$ baton ${args.map(shellWord).join(" ")}`);
  if (options.env) {
    const operator = { ...ctx, container: undefined, sandboxEnv: options.env, checkout: options.cwd ?? root };
    return inSandbox(operator, ["baton", ...args], options);
  }
  return inSandbox(ctx, ["baton", ...args], options);
}

/** Docker answers and we may manage its networks' firewall (root): the demo then uses a container sandbox. */
function dockerSandboxes() {
  return whyNoContainer({ root, argv: process.argv, uid: process.getuid?.(), env: process.env });
}

// The steps both flows take: build, and sign in as a person.
const BUILD = {
  name: "build baton",
  skip: process.argv.includes("--skip-build"),
  run() {
    execFileSync(process.execPath, [join(root, "scripts", "build.mjs")], { cwd: root, stdio: "inherit" });
  },
};
const TOKEN = {
  name: "create a personal access token for owner@acme.test (shown once; kept here, not printed)",
  run(ctx) {
    const out = baton(
      ctx,
      [
        "admin",
        "token",
        "create",
        "--url",
        ctx.adminUrl,
        "--email",
        "owner@acme.test",
        "--name",
        "demo",
        "--lifetime",
        "30",
        "--json",
      ],
      { env: { ...process.env, BATON_ADMIN_TOKEN: ctx.adminToken }, cwd: root, quiet: true },
    );
    const made = JSON.parse(out);
    ctx.apiToken = made.token;
    console.log(`token "${made.name}" for ${made.email} (…${made.lastFour}), expires ${made.expiresAt}`);
  },
};
const LOGIN = {
  name: "sign in the client with that token, piped in (as a script would); the token is never printed",
  run(ctx) {
    ctx.clientEnv = {
      ...process.env,
      // The service listens on plain-http loopback: reached only through this override (docs/client.md).
      BATON_API_URL: ctx.url,
      XDG_CONFIG_HOME: join(ctx.tmp, "client-config"),
    };
    console.log("$ printf '%s' \"$TOKEN\" | baton login -w ws_acme");
    client(ctx, ["login", "-w", "ws_acme"], { input: ctx.apiToken });
    client(ctx, ["whoami"]);
  },
};

const STEPS = [
  BUILD,
  {
    name: "choose the sandbox: a container when Docker is available (image built or taken from the cache)",
    run(ctx) {
      const without = dockerSandboxes();
      if (without) {
        console.log(`falling back to a temporary HOME on this machine: ${without}`);
        return;
      }
      execFileSync(process.execPath, [join(root, "scripts", "build-sandbox-image.mjs"), "--skip-build"], {
        cwd: root,
        stdio: "inherit",
      });
      ctx.docker = true;
      console.log("the agent's commands will run inside a container sandbox (docker driver)");
    },
  },
  {
    name: "start baton serve on a free loopback port (fixture seed, temporary SQLite file)",
    async run(ctx) {
      ctx.adminToken = randomBytes(32).toString("hex");
      ctx.proxyToken = randomBytes(32).toString("hex");
      ctx.mail = await startMailCatcher();
      const db = join(ctx.tmp, "serve.sqlite");
      ctx.db = db;
      // The demo plays the code host's App: the webhook secret both sides know, in a file as an operator keeps it,
      // and a seed that records the App's installation for the workspace.
      ctx.webhookSecret = randomBytes(32).toString("hex");
      const webhookSecretFile = join(ctx.tmp, "codehost-webhook-secret");
      writeFileSync(webhookSecretFile, `${ctx.webhookSecret}\n`, { mode: 0o600 });
      const seed = join(ctx.tmp, "seed.json");
      writeFileSync(seed, JSON.stringify(demoSeed(SEED)));
      // The egress proxy first (it needs root for its test upstream's network namespace): the service is started
      // knowing it, so a container sandbox's forwarder reaches it, and the proxy is told the service's admin
      // listener (where it asks about leases).
      const adminPort = await freeLoopbackPort();
      if (process.getuid?.() === 0) await startEgress(ctx, `http://127.0.0.1:${adminPort}`);
      const serveLog = stdioWithLog(ctx, "serve");
      const child = spawn(
        process.execPath,
        [
          bin,
          "serve",
          ...["--port", "0", "--admin-listen", `127.0.0.1:${adminPort}`, "--db", db, "--seed", seed],
          ...["--codehost-webhook-secret-file", webhookSecretFile],
          ...["--smtp-url", ctx.mail.url, "--json"],
          // The admin API copies checkouts only from under --checkout-root: here, the fixture repositories.
          ...(ctx.docker
            ? ["--sandbox-driver", "docker", "--checkout-root", join(root, "fixtures", "repos")]
            : []),
          ...(ctx.proxyUrl ? ["--proxy-url", ctx.proxyUrl] : []),
        ],
        {
          env: { ...process.env, BATON_ADMIN_TOKEN: ctx.adminToken, BATON_PROXY_TOKEN: ctx.proxyToken },
          stdio: serveLog.stdio,
        },
      );
      serveLog.close();
      ctx.serve = child;
      // The terminal's Ctrl-C reaches the service too: one that stops cleanly before the demo asked was interrupted.
      child.once("exit", (code, signal) => {
        if (!ctx.stopping && (code === 0 || signal !== null)) ctx.serviceInterrupted = true;
      });
      const line = await new Promise((resolve, reject) => {
        child.once("exit", (code) => reject(new Error(`baton serve exited early (${code})`)));
        createInterface({ input: child.stdout }).once("line", resolve);
      });
      ({ url: ctx.url, adminUrl: ctx.adminUrl } = JSON.parse(line));
      console.log(`baton serve is listening on ${ctx.url} (database ${db}; e-mail to ${ctx.mail.url})`);
      console.log(`its admin API listens apart, on ${ctx.adminUrl}`);
    },
  },
  {
    name: "make a sandbox holding a checkout of acme/api (admin API)",
    async run(ctx) {
      const fixture = join(root, "fixtures", "repos", "acme-api");
      if (ctx.docker) {
        // The service provisions the box: checkout copied in, the sandbox variables set, egress only via it.
        console.log(
          `$ POST ${ctx.adminUrl}/admin/v1/sandboxes {workspaceId, engagementId, repository, checkout}`,
        );
        const response = await fetch(`${ctx.adminUrl}/admin/v1/sandboxes`, {
          method: "POST",
          headers: { "content-type": "application/json", "baton-admin-token": ctx.adminToken },
          body: JSON.stringify({
            workspaceId: "ws_acme",
            engagementId: "demo",
            repository: REPOSITORY,
            checkout: fixture,
          }),
        });
        const sandbox = await response.json();
        if (response.status !== 201) throw new Error(`the sandbox was not created: ${sandbox.reason}`);
        ctx.container = sandbox.sandbox.ref;
        ctx.boxEnv = sandbox.env;
        ctx.home = "/home/agent";
        ctx.checkoutInBox = `/home/agent/checkouts/${REPOSITORY}`;
        console.log(
          `sandbox ${sandbox.sandboxId}: container ${ctx.container.slice(0, 12)} on ${sandbox.sandbox.image}; ` +
            `BATON_OPS_URL=${sandbox.env.BATON_OPS_URL} (the service, through the box's only route)`,
        );
        console.log(`checkout: ${ctx.checkoutInBox} (inside the container)`);
        return;
      }
      const out = baton(
        { ...ctx, sandboxEnv: { ...process.env, BATON_ADMIN_TOKEN: ctx.adminToken }, checkout: root },
        [
          "admin",
          "sandbox",
          "--url",
          ctx.adminUrl,
          "--workspace",
          "ws_acme",
          "--engagement",
          "demo",
          "--json",
        ],
        { quiet: true }, // its answer holds the sandbox's turn token and lease
      );
      const sandbox = JSON.parse(out);
      ctx.home = join(ctx.tmp, "home");
      ctx.checkout = join(ctx.home, "checkouts", ...REPOSITORY.split("/"));
      mkdirSync(ctx.checkout, { recursive: true });
      cpSync(fixture, ctx.checkout, { recursive: true });
      // Only what a sandbox has: HOME, PATH and the three transport variables.
      ctx.sandboxEnv = { HOME: ctx.home, PATH: process.env.PATH ?? "", ...sandbox.env };
      console.log(
        `sandbox ${sandbox.sandboxId} in engagement ${sandbox.engagementId}; BATON_OPS_URL=${sandbox.env.BATON_OPS_URL}`,
      );
      console.log("BATON_TURN_TOKEN and BATON_SANDBOX_LEASE are set for the sandbox (not shown)");
      console.log(`HOME=${ctx.home}\ncheckout: ${ctx.checkout}`);
    },
  },
  {
    name: `activate ${REPOSITORY} as the agent would`,
    run(ctx) {
      baton(ctx, ["env", "activate", REPOSITORY]);
    },
  },
  {
    name: "show the environment file's names (never values)",
    run(ctx) {
      baton(ctx, ["env", "show"]);
    },
  },
  {
    name: "source ~/.baton/environment.sh in a new bash: every assigned name is set (values not shown)",
    run(ctx) {
      const shown = JSON.parse(baton(ctx, ["env", "show", "--json"], { quiet: true }));
      const names = shown.variables.map((variable) => variable.assigned);
      // ${!n+x} tests "set" without expanding the value; only the name and set/unset are printed.
      const script =
        // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a JS template
        '. "$HOME/.baton/environment.sh" && for n in "$@"; do if [ -n "${!n+x}" ]; then echo "  $n: set"; else echo "  $n: NOT SET"; exit 1; fi; done';
      console.log(`$ bash -c '. "$HOME/.baton/environment.sh"' (then check ${names.length} names)`);
      inSandbox(ctx, ["bash", "-c", script, "demo", ...names]);
      if (ctx.container) {
        // In the image every new bash reads the file by itself (BASH_ENV, /etc/profile.d): no sourcing by hand.
        console.log(`$ bash -lc (a new login shell, nothing sourced by hand; check ${names.length} names)`);
        inSandbox(ctx, [
          "bash",
          "-lc",
          script.replace('. "$HOME/.baton/environment.sh" && ', ""),
          "demo",
          ...names,
        ]);
      }
    },
  },
  {
    name: "show the saved handoff",
    run(ctx) {
      const file = join(ctx.home, ".baton", "handoffs", `${REPOSITORY.replace("/", "__")}.json`);
      console.log(file);
      inSandbox(ctx, ["cat", file]);
    },
  },
  {
    name: "apply the repository's Dockerfile inside the sandbox (RUN in order, ENV persisted)",
    run(ctx) {
      baton(ctx, ["dockerfile", "apply", REPOSITORY]);
    },
  },
  {
    name: "source the environment and run the startup runner in the same shell (evidence summarised)",
    run(ctx) {
      const handoff = JSON.parse(
        inSandbox(
          ctx,
          ["cat", join(ctx.home, ".baton", "handoffs", `${REPOSITORY.replace("/", "__")}.json`)],
          {
            quiet: true,
          },
        ),
      );
      const runPath = handoff.managedStartup.runPath;
      console.log(`$ . ~/.baton/environment.sh && node ${runPath} --repo ${REPOSITORY}`);
      const out = inSandbox(
        ctx,
        [
          "bash",
          "-c",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: bash replaces a leading ~ of the run path
          '. "$HOME/.baton/environment.sh" && node "${1/#\\~/$HOME}" --repo "$2"',
          "demo",
          runPath,
          REPOSITORY,
        ],
        { quiet: true },
      );
      const evidence = JSON.parse(out);
      console.log(
        `outcome ${evidence.outcome}, exit ${evidence.exitCode}, ${evidence.durationMs} ms, readiness ${evidence.readiness.status}; ` +
          `${evidence.output.lines} output ${evidence.output.lines === 1 ? "line" : "lines"} kept in ${handoff.managedStartup.evidencePath}`,
      );
    },
  },
  {
    name: "report missing access (a capability request); owners and admins get one e-mail each",
    async run(ctx) {
      const out = baton(ctx, [
        "env",
        "request-capability",
        "--repo",
        REPOSITORY,
        "--capability",
        "registry_access",
        "--target",
        "https://npm.acme.test/pkg",
        "--reason",
        "npm install needs the private registry",
      ]);
      const id = /\b(cr_[0-9a-f]+)\b/.exec(out)?.[1];
      if (!id) throw new Error("request-capability printed no request id");
      await ctx.mail.waitFor(2, 10_000);
      baton(ctx, ["op", "get", id]);
      for (const mail of ctx.mail.received) console.log(`mail to ${mail.to}: ${mail.subject}`);
    },
  },
  {
    name: "run the check acme/api's AGENTS.md requires (npm test) in the sourced shell",
    run(ctx) {
      console.log("$ . ~/.baton/environment.sh && npm test");
      // In the container every new bash reads the environment file by itself; sourcing it again changes nothing.
      const check = ctx.container
        ? spawnSync(
            "docker",
            dockerExec(ctx, ["bash", "-c", '. "$HOME/.baton/environment.sh" && npm test']),
            {
              env: { ...process.env, ...ctx.boxEnv },
              encoding: "utf8",
            },
          )
        : spawnSync("bash", ["-c", '. "$HOME/.baton/environment.sh" && npm test'], {
            env: ctx.sandboxEnv,
            cwd: ctx.checkout,
            encoding: "utf8",
          });
      const summary = /^# (pass|fail) \d+$/gm;
      process.stdout.write(`${(check.stdout ?? "").match(summary)?.join("\n") ?? "(no test summary)"}\n`);
      // The disclosure reports what really happened: passed, failed, or not run when npm could not start.
      ctx.check =
        check.error !== undefined
          ? `npm test=not_run:${check.error.code ?? "could not start"}`
          : check.status === 0
            ? "npm test=passed"
            : `npm test=failed:exit ${check.status ?? check.signal}`;
      console.log(`npm test exited ${check.status ?? check.signal}: reporting --check "${ctx.check}"`);
    },
  },
  {
    name: "egress: baton proxy beside baton serve; one placeholder swapped at its approved host, one request refused",
    // The upstream test host lives in a network namespace (the proxy never dials loopback): that needs root.
    skip: process.getuid?.() !== 0 && "needs root for a network namespace",
    async run(ctx) {
      await runEgressStep(ctx);
    },
  },
  {
    name: "write the pull-request disclosure",
    run(ctx) {
      const disclosure = baton(ctx, ["disclose", REPOSITORY, "--check", ctx.check]);
      // npm checks for a newer npm when `npm test` runs; this demo's proxy opens no rule for that host.
      const refused = /`CONNECT ([^`:]+):443` \| `403 destination_denied`/.exec(disclosure)?.[1];
      if (refused)
        console.log(
          `(the refused CONNECT to ${refused} is npm's own update check during npm test: no rule of the demo's proxy opens that host, and a disclosure lists every request the proxy refused)`,
        );
    },
  },
  TOKEN,
  LOGIN,
  {
    name: "start a task with baton start and follow it to the scripted agent's reply",
    run(ctx) {
      const out = client(ctx, ["start", "-r", REPOSITORY, "Summarise the README of acme/api"]);
      ctx.taskId = /baton reply (\S+)/.exec(out.all)?.[1];
      if (!ctx.taskId) throw new Error("baton start did not name its task");
    },
  },
  {
    name: "send a follow-up with baton reply; it runs as the next turn",
    run(ctx) {
      client(ctx, ["reply", ctx.taskId, "Which scripts does package.json have?"]);
    },
  },
  {
    name: "stop a running turn with baton stop",
    async run(ctx) {
      client(ctx, ["reply", "--no-wait", ctx.taskId, "Now run the database migration"]);
      await follow(ctx, ["implementing"]);
      client(ctx, ["stop", ctx.taskId]);
      await follow(ctx, ["cancelled"]);
    },
  },
  {
    name: "print the task and its conversation with baton show",
    run(ctx) {
      client(ctx, ["show", ctx.taskId]);
      client(ctx, ["tasks"]);
    },
  },
  {
    name: "over MCP (POST /v1/mcp, the same token as a bearer header): list the tools, call whoami and start_task",
    async run(ctx) {
      console.log(`$ POST ${ctx.url}/v1/mcp tools/list   (Authorization: Bearer $TOKEN)`);
      const { tools } = await callMcp(ctx.url, ctx.apiToken, "tools/list");
      console.log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);
      const me = await callTool(ctx.url, ctx.apiToken, "whoami");
      console.log(`whoami: ${me.user.name}, ${me.workspaces.map((w) => `${w.id} (${w.role})`).join(", ")}`);
      const { task } = await callTool(ctx.url, ctx.apiToken, "start_task", {
        workspace_id: "ws_acme",
        repo: REPOSITORY,
        prompt: "List the files at the root of acme/api",
      });
      console.log(`start_task: ${task.id} "${task.title}", status ${task.status}`);
    },
  },
  {
    name: "a signed code-host webhook: an issue labelled `baton` starts a task; the reply is posted on the issue",
    async run(ctx) {
      const issue = {
        repo: REPOSITORY,
        number: 7,
        title: "Document the health check",
        body: "GET /healthz is undocumented.",
      };
      const payload = labelledIssuePayload(root, issue);
      console.log(
        `$ POST ${ctx.url}/webhooks/codehost   (X-GitHub-Event: issues, action "labeled", X-Hub-Signature-256: sha256=…)`,
      );
      const answer = await deliverSigned(ctx.url, ctx.webhookSecret, "issues", payload);
      console.log(`${answer.status} ${answer.text}`);
      if (answer.status !== 202) throw new Error(`the webhook was answered ${answer.status}`);
      await waitForTask(ctx, (t) => t.source === "codehost_issue" && t.title === issue.title, ["replied"]);
      // Its conversation is kept on the issue (reference: "its conversation stays there"); baton tasks lists it.
      client(ctx, ["tasks"]);
      const { DatabaseSync } = await importQuietly("node:sqlite");
      const store = new DatabaseSync(ctx.db, { readOnly: true });
      const comments = await pollComments(store, `${issue.repo}#${issue.number}`);
      store.close();
      console.log(`on ${issue.repo}#${issue.number} (the local code host keeps its comments in the store):`);
      for (const body of comments)
        console.log(`  comment: ${body.replace(/\s*<!--[^>]*-->\s*/g, " ").trim()}`);
    },
  },
  {
    name: "open the task baton start started in the dashboard (headless Chromium, signed in by the e-mailed link)",
    async run(ctx) {
      const response = await fetch(`${ctx.url}/v1/workspaces/ws_acme/tasks/${ctx.taskId}`, {
        headers: { authorization: `Bearer ${ctx.apiToken}` },
      });
      const task = await response.json();
      console.log(`the task's page (its url): ${task.url}`);
      const shown = await openTaskPage({
        url: ctx.url,
        taskUrl: task.url,
        email: "owner@acme.test",
        mail: ctx.mail,
      });
      console.log(`page title: ${shown.title}`);
      console.log(`conversation entries on the page: ${shown.entries}`);
      // The same page for the person running the demo, signed in: a one-time link (it asks "Sign in as …?" once).
      // Only for a person at a terminal: the link is a credential, and a log or CI output keeps none.
      if (!process.stdin.isTTY) {
        console.log(
          "(in a terminal, the demo prints here a one-time link that opens this page signed in, and keeps the service up until Enter)",
        );
        return;
      }
      const link = await signInLinkFor({
        url: ctx.url,
        email: "owner@acme.test",
        mail: ctx.mail,
        next: new URL(task.url).pathname,
      });
      console.log(`open the dashboard signed in as owner@acme.test (once, within 15 minutes): ${link}`);
      ctx.dashboardLink = link;
    },
  },
];

/** Polls the task list until a task `matches` and has reached one of `statuses`. */
async function waitForTask(ctx, matches, statuses) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const response = await fetch(`${ctx.url}/v1/workspaces/ws_acme/tasks`, {
      headers: { authorization: `Bearer ${ctx.apiToken}` },
    });
    const task = (await response.json()).tasks.find(matches);
    if (task && statuses.includes(task.status)) {
      console.log(`task ${task.id} (source ${task.source}): "${task.title}", status ${task.status}`);
      return task;
    }
    if (Date.now() > deadline) throw new Error(`no ${statuses.join("/")} task for the webhook's issue`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The comments the local code host holds for an issue, once the reply's outbox has posted one. */
async function pollComments(store, issueKey) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = store
      .prepare("SELECT body FROM ticket_comments WHERE source = 'codehost' AND issue_key = ? ORDER BY seq")
      .all(issueKey);
    if (rows.length > 0 || Date.now() > deadline) return rows.map((row) => row.body);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Polls the task (as the client does, but every 200 ms) until its status is one of `statuses`. */
async function follow(ctx, statuses) {
  const deadline = Date.now() + 30_000;
  let last = "";
  for (;;) {
    const response = await fetch(`${ctx.url}/v1/workspaces/ws_acme/tasks/${ctx.taskId}`, {
      headers: { authorization: `Bearer ${ctx.apiToken}` },
    });
    const task = await response.json();
    if (task.status !== last) console.log(`  status: ${task.status}${task.queued ? " (queued)" : ""}`);
    last = task.status;
    if (statuses.includes(task.status)) return task;
    if (Date.now() > deadline) throw new Error(`task ${ctx.taskId} is still ${task.status}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Starts a test upstream for payments.acme.test in a network namespace (HTTPS, certificate from a CA only the
 * proxy trusts), `baton proxy` with a config pinning that name and opening its address, reactivates so
 * environment.sh carries the proxy settings, then sends the secret's placeholder there and one request to the
 * cloud metadata address.
 */
async function startEgress(ctx, serveUrl) {
  const { generateCa } = await import(join(root, "dist", "src", "proxy", "ca", "authority.js"));
  const { issueLeafPem } = await import(join(root, "dist", "src", "proxy", "ca", "leaves.js"));
  const { writeFileSync } = await import("node:fs");
  const id = randomBytes(3).toString("hex");
  // BATON_NETNS_PREFIX (up to 8 characters) keeps runs by several people on one machine apart.
  const ns = `${process.env.BATON_NETNS_PREFIX || "proxyd"}${id}`;
  const third = randomBytes(1)[0];
  const [gateway, upstream] = [`198.18.${third}.1`, `198.18.${third}.2`];
  const ip = (...args) => execFileSync("ip", args);
  ctx.netns = ns;
  ip("netns", "add", ns);
  ip("link", "add", `${ns}a`, "type", "veth", "peer", "name", `${ns}b`);
  ip("link", "set", `${ns}b`, "netns", ns);
  ip("addr", "add", `${gateway}/30`, "dev", `${ns}a`);
  ip("link", "set", `${ns}a`, "up");
  ip("netns", "exec", ns, "ip", "addr", "add", `${upstream}/30`, "dev", `${ns}b`);
  ip("netns", "exec", ns, "ip", "link", "set", `${ns}b`, "up");
  const ca = await generateCa();
  const leaf = await issueLeafPem(ca, ["payments.acme.test"]);
  for (const [name, text] of [
    ["upstream-ca.pem", ca.certPem],
    ["up.pem", leaf.certPem],
    ["up-key.pem", leaf.keyPem],
  ])
    writeFileSync(join(ctx.tmp, name), text);
  const received = [];
  const upstreamLog = stdioWithLog(ctx, "payments-upstream");
  ctx.upstream = spawn(
    "ip",
    [
      "netns",
      "exec",
      ns,
      process.execPath,
      join(root, "test", "helpers", "proxy-upstream.mjs"),
      "--name",
      "payments",
      "--cert",
      join(ctx.tmp, "up.pem"),
      "--key",
      join(ctx.tmp, "up-key.pem"),
    ],
    { stdio: upstreamLog.stdio },
  );
  upstreamLog.close();
  await new Promise((resolve) =>
    createInterface({ input: ctx.upstream.stdout }).on("line", (line) => {
      const parsed = JSON.parse(line);
      if (parsed.ready) resolve();
      else received.push(parsed);
    }),
  );
  const config = join(ctx.tmp, "proxy.json");
  writeFileSync(
    config,
    JSON.stringify({
      allow: [{ name: "demo-payments", cidr: [`${upstream}/32`] }],
      dns: { hosts: { "payments.acme.test": [upstream] } },
      upstreamCaFile: join(ctx.tmp, "upstream-ca.pem"),
    }),
  );
  console.log(`$ baton proxy --serve-url ${serveUrl} --config proxy.json --host ${gateway} --json`);
  const proxyLog = stdioWithLog(ctx, "proxy");
  ctx.proxy = spawn(
    process.execPath,
    [
      bin,
      "proxy",
      "--serve-url",
      serveUrl,
      "--config",
      config,
      "--host",
      gateway,
      "--state-dir",
      join(ctx.tmp, "proxy-state"),
      "--audit-file",
      join(ctx.tmp, "audit.log"),
      "--json",
    ],
    { env: { ...process.env, BATON_PROXY_TOKEN: ctx.proxyToken }, stdio: proxyLog.stdio },
  );
  proxyLog.close();
  const line = await new Promise((resolve, reject) => {
    ctx.proxy.once("exit", (code) => reject(new Error(`baton proxy exited early (${code})`)));
    createInterface({ input: ctx.proxy.stdout }).once("line", resolve);
  });
  console.log(line);
  ctx.proxyUrl = JSON.parse(line).url;
  ctx.received = received;
}

/** Reactivates so environment.sh carries the proxy settings, then sends the secret's placeholder to its approved
 * host and one request to the cloud metadata address, from inside the sandbox. */
async function runEgressStep(ctx) {
  const received = ctx.received;
  console.log("the sandbox has BATON_PROXY_URL (from the service); activation writes the proxy settings:");
  baton(ctx, ["env", "activate", REPOSITORY], { quiet: true });
  const script = [
    '. "$HOME/.baton/environment.sh"',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: bash syntax, not a JS template
    'echo "HTTPS_PROXY=${HTTPS_PROXY%%:*}://baton:<lease>@${HTTPS_PROXY##*@}  SSL_CERT_FILE=$SSL_CERT_FILE"',
    'echo "$ curl -H "Authorization: Bearer $PAYMENTS_KEY" https://payments.acme.test/echo"',
    'curl -sS -H "Authorization: Bearer $PAYMENTS_KEY" https://payments.acme.test/echo; echo',
    "echo '$ curl http://169.254.169.254/latest/meta-data/'",
    'curl -sS -i http://169.254.169.254/latest/meta-data/ | grep -iE "^HTTP|^baton-proxy-error|^baton proxy"',
  ].join("\n");
  inSandbox(ctx, ["bash", "-c", script]);
  const deadline = Date.now() + 5000;
  while (!received.some((r) => r.url === "/echo") && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
  const seen = received.find((r) => r.url === "/echo");
  const placeholder = /baton-secret-sec_[0-9a-f]{32}/.test(seen?.headers.authorization ?? "");
  console.log(
    `payments.acme.test received ${seen && !placeholder ? "the real value (not shown)" : "NO real value"}; the sandbox saw only the placeholder`,
  );
  if (!seen || placeholder) throw new Error("the placeholder was not swapped at its approved host");
  console.log(
    "(the echo shows the placeholder, not the value payments.acme.test got: baton proxy masks a secret's value in an answer on its way back, so it never enters the sandbox)",
  );
  const audit = readFileSync(join(ctx.tmp, "audit.log"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l).audit);
  for (const a of audit.slice(-3))
    console.log(
      `audit: ${a.kind} ${a.method} ${a.host}:${a.port} ${a.decision} (${a.rule}) swapped=${JSON.stringify(a.substitution?.swapped ?? [])}`,
    );
}

/** Stops what the demo started, once (a Ctrl-C during a failure's stop waits for that same stop). */
function stop(ctx) {
  ctx.stopping ??= stopAll(ctx);
  return ctx.stopping;
}

async function stopAll(ctx) {
  ctx.following?.kill("SIGTERM");
  await deleteThroughService(ctx);
  for (const child of [ctx.proxy, ctx.upstream]) {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    }
  }
  if (ctx.netns) {
    for (const args of [
      ["link", "del", `${ctx.netns}a`],
      ["netns", "del", ctx.netns],
    ]) {
      try {
        execFileSync("ip", args, { stdio: "ignore" });
      } catch {}
    }
  }
  await ctx.fake?.close();
  await ctx.modelHost?.close();
  if (ctx.serve && ctx.serve.exitCode === null && ctx.serve.signalCode === null) {
    const exited = new Promise((resolve) => ctx.serve.once("exit", resolve));
    ctx.serve.kill("SIGTERM");
    const timer = setTimeout(() => ctx.serve.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
  }
  // A Ctrl-C reaches the service too (one process group), which stops keeping its boxes: remove what it kept.
  if (ctx.docker && ctx.db) {
    const removed = pruneStoppedService({ driver: "docker", db: ctx.db });
    if (removed.length > 0) console.log(`removed ${removed.length} sandbox box(es) the stopped service kept`);
  }
  await ctx.mail?.close();
  rmSync(ctx.tmp, { recursive: true, force: true });
}

/** Waits for Enter (a Ctrl-C stops the demo as at any other time). */
async function waitForEnter(ctx) {
  console.log(`\nthe dashboard stays up at ${ctx.url}/dashboard: press Enter to stop the demo`);
  const lines = createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once("line", resolve));
  lines.close();
}

async function main() {
  if (Number(process.versions.node.split(".")[0]) < 22) {
    console.error(
      `demo: baton needs Node 22 or newer (this is ${process.version}); run it with \`npm run demo\``,
    );
    process.exitCode = 1;
    return;
  }
  const agentId = agentFlag(process.argv);
  // With --agent, a real coding agent in a box against a fake of its model API; without, the scripted agent.
  const steps = agentId === undefined ? STEPS : realAgentSteps({ build: BUILD, token: TOKEN, login: LOGIN });
  const ctx = { tmp: mkdtempSync(join(tmpdir(), "baton-demo-")), logDir: makeLogDir(), agentId, logs: [] };
  // The terminal shows the demo's own steps; the services' JSON log lines go to files it keeps.
  console.log(`the services' logs (JSON lines) go to ${ctx.logDir}/, kept after the demo`);
  const interrupted = () => {
    ctx.interrupted = true;
    console.log("\ninterrupted: stopping what the demo started and removing the temporary files");
    void stop(ctx).finally(() => process.exit(130));
  };
  process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
  let failed = false;
  try {
    for (const [index, step] of steps.entries()) {
      if (ctx.interrupted) return;
      const skipped =
        typeof step.skip === "string" ? ` (skipped: ${step.skip})` : step.skip ? " (skipped)" : "";
      console.log(`\n== ${index + 1}. ${step.name}${skipped}`);
      if (!step.skip) await step.run(ctx);
    }
    // In a terminal the service stays up for the dashboard link until the person is done with it.
    if (ctx.dashboardLink && process.stdin.isTTY) await waitForEnter(ctx);
    console.log("\n== done: stopping baton serve and removing the temporary files");
  } catch (error) {
    failed = true;
    // An interrupted step fails as its processes stop: that is no failure to explain. A Ctrl-C during a
    // synchronous command is handled once the event loop runs again: let it run first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (ctx.interrupted) return;
    // A step that failed because the Ctrl-C stopped the service first ("baton env show exited 1") was interrupted.
    if (ctx.serviceInterrupted) {
      interrupted();
      return;
    }
    for (const tail of logTails(ctx)) console.error(tail);
    console.error(`\ndemo failed: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await stop(ctx);
  }
  // A run that failed before any service started has no logs to keep.
  if (ctx.logs.length === 0) rmSync(ctx.logDir, { recursive: true, force: true });
  else console.log(`the services' logs stay in ${ctx.logDir}/`);
  process.exitCode = failed ? 1 : 0;
}

await main();
