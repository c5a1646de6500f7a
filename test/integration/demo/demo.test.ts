// The README's first command: the end-to-end demo runs every step against a real baton serve and cleans up.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { demoLogDir } from "./demo-logs.js";

describe("npm run demo", () => {
  // CI has Docker (scripts/setup-machine.sh), so the default run must take the container sandbox; --no-docker
  // shows the fallback a machine without Docker gets.
  it.each([
    ["a container sandbox (Docker available)", []],
    ["the temporary-HOME fallback (--no-docker)", ["--no-docker"]],
  ])(
    "in %s: activates acme/api, applies its Dockerfile, runs startup and the required check, e-mails owners, discloses; never a secret; removes what it made",
    async (_mode, flags) => {
      // --skip-build: the test run's global setup has built dist/ already.
      const run = await execa(
        process.execPath,
        [join(PROJECT_ROOT, "scripts", "demo.mjs"), "--skip-build", ...flags],
        { cwd: PROJECT_ROOT, reject: false, env: { BATON_LOG_LEVEL: "" } },
      );
      // Issue 37 A11: the services' logs go to a folder the demo names and keeps; the terminal shows its steps.
      const logDir = demoLogDir(run.stdout);
      expect(logDir, run.stdout.slice(0, 500)).toBeDefined();
      const serveLog = readFileSync(join(logDir!, "serve.log"), "utf8");
      rmSync(logDir!, { recursive: true, force: true });
      expect(run.exitCode, run.stderr).toBe(0);
      expect(serveLog).toContain('"msg":"listening"');
      expect(serveLog).toContain('"event":"token.created"');
      expect(`${run.stdout}\n${run.stderr}`).not.toMatch(/^\{"level"/m);
      expect(`${run.stdout}\n${run.stderr}`).not.toContain("ExperimentalWarning");
      expect(run.stdout).toContain(`the services' logs stay in ${logDir}/`);
      for (const heading of [
        "start baton serve",
        "make a sandbox",
        "activate acme/api",
        "environment file's names",
        "saved handoff",
        "apply the repository's Dockerfile",
        "startup runner",
        "capability request",
        "run the check acme/api's AGENTS.md requires",
        "pull-request disclosure",
        "personal access token",
        "sign in the client with that token, piped in",
        "start a task with baton start",
        "send a follow-up with baton reply",
        "stop a running turn with baton stop",
        "print the task and its conversation with baton show",
        "over MCP (POST /v1/mcp, the same token as a bearer header)",
        "open the task baton start started in the dashboard",
        "done",
      ]) {
        expect(run.stdout).toContain(heading);
      }
      expect(run.stdout).toContain("acme/api: DATABASE_URL -> DATABASE_URL");
      expect(run.stdout).toContain('"schemaVersion": 1');
      expect(run.stdout).toContain("outcome succeeded, exit 0");
      // Counts agree with their nouns: the start script prints one line.
      expect(run.stdout).toMatch(/; 1 output line kept in /);
      expect(run.stdout).toContain("1 RUN step succeeded");
      expect(run.stdout).toMatch(/E-mail new request: \S+ sent, \S+ sent/);
      expect(run.stdout).toContain("## Environment disclosure: acme/api");
      // The check the disclosure reports was run for real in the sourced shell, and its real result is reported.
      const check = run.stdout.slice(
        run.stdout.indexOf("run the check acme/api's AGENTS.md requires"),
        run.stdout.indexOf("write the pull-request disclosure"),
      );
      expect(check).toContain("# pass 3");
      expect(run.stdout).toContain('reporting --check "npm test=passed"');
      // Commands are shown as they can be typed again: words with spaces are quoted.
      expect(run.stdout).toContain("$ baton disclose acme/api --check 'npm test=passed'");
      expect(run.stdout).toContain("--reason 'npm install needs the private registry'");
      expect(run.stdout).toMatch(/\| `npm test` \| passed \|/);
      expect(run.stdout).toContain("**Ready for review:** every required check ran and passed.");
      // Egress through the real baton proxy (root here and in CI): the placeholder swapped at its approved host only.
      expect(run.stdout).toContain("payments.acme.test received the real value (not shown)");
      expect(run.stdout).toContain("baton-proxy-error: destination_denied");
      // The echo's placeholder is explained: the proxy masks the value again in the answer.
      expect(run.stdout).toContain(
        "(the echo shows the placeholder, not the value payments.acme.test got: baton proxy masks a secret's value in an answer on its way back",
      );
      // A refused request in the disclosure (npm's update check during npm test) is explained in a line.
      const refusedInDisclosure = /`CONNECT ([^`:]+):443` \| `403 destination_denied`/.exec(run.stdout)?.[1];
      expect(refusedInDisclosure).toBeDefined();
      expect(run.stdout).toContain(
        `(the refused CONNECT to ${refusedInDisclosure} is npm's own update check during npm test`,
      );
      // The client's own output: signed in by a piped token, `baton start` followed to the reply, a reply, a stop.
      expect(run.stdout).toContain("Default workspace: ws_acme (Acme).");
      expect(run.stdout).toMatch(
        /\$ baton start -r acme\/api 'Summarise the README of acme\/api'\nRepository: acme\/api\nStarted task (task_\w+); following it[^\n]*\nagent: Done: Summarise the README of acme\/api[^\n]*\nTurn done \(replied\)\. Reply with: baton reply \1/,
      );
      expect(run.stdout).toContain("agent: package.json has two scripts: start and test.");
      expect(run.stdout).toMatch(/status: implementing[\s\S]*\$ baton stop [\s\S]*status: cancelled/);
      expect(run.stdout).toMatch(/\] user:\n {2}Summarise the README of acme\/api/);
      expect(run.stdout).toMatch(/\] baton:\n {2}Stopped by Olive Owner\. Send a follow-up to continue\./);
      // The MCP step: the seven tools, whoami as the token's user, a task started by start_task.
      expect(run.stdout).toContain(
        "tools: whoami, list_tasks, get_task, start_task, follow_up, get_messages, stop_task",
      );
      expect(run.stdout).toContain("whoami: Olive Owner, ws_acme (owner)");
      expect(run.stdout).toMatch(/start_task: \S+ "List the files at the root of acme\/api", status \w+/);
      // The webhook step: one signed delivery accepted, the task it started, the reply posted on the issue.
      expect(run.stdout).toContain('202 {"ok":true}');
      expect(run.stdout).toMatch(
        /task \S+ \(source codehost_issue\): "Document the health check", status replied/,
      );
      expect(run.stdout).toMatch(
        /on acme\/api#7 \(the local code host[^\n]*\n {2}comment: Done: acme\/api#7: Document/,
      );
      // The dashboard step: the Task's url of the task `baton start` started, loaded signed in in headless Chromium.
      const started = /Started task (task_\w+)/.exec(run.stdout)?.[1];
      expect(run.stdout).toMatch(
        new RegExp(
          `the task's page \\(its url\\): http://127\\.0\\.0\\.1:\\d+/dashboard/workspaces/ws_acme/tasks/${started}\n`,
        ),
      );
      expect(run.stdout).toContain("page title: Summarise the README of acme/api · Acme · Baton");
      // The prompt, the reply, the follow-up and its reply, the stopped message and who stopped it: at least 5.
      const entries = Number(/conversation entries on the page: (\d+)/.exec(run.stdout)?.[1]);
      expect(entries).toBeGreaterThanOrEqual(5);
      // Issue 37 A3: the signed-in dashboard link is printed only at a terminal (no link in this output).
      expect(run.stdout).toContain(
        "in a terminal, the demo prints here a one-time link that opens this page signed in",
      );
      expect(`${run.stdout}${run.stderr}`).not.toMatch(/canary-|btt_|btl_|btn_|token=/);
      if (flags.length === 0) {
        expect(run.stdout).toContain(
          "the agent's commands will run inside a container sandbox (docker driver)",
        );
        expect(run.stdout).toContain("$ bash -lc (a new login shell, nothing sourced by hand");
        const container = /container ([0-9a-f]{12}) on baton-sandbox:/.exec(run.stdout)?.[1];
        expect(container).toBeDefined();
        const left = await execa("docker", ["ps", "-aq", "--filter", `id=${container}`]);
        expect(left.stdout.trim()).toBe(""); // the service removed its box when it stopped
      } else {
        expect(run.stdout).toContain(
          "falling back to a temporary HOME on this machine: --no-docker was given",
        );
        const home = /^HOME=(.*)$/m.exec(run.stdout)?.[1];
        expect(home).toBeDefined();
        expect(existsSync(home!)).toBe(false);
      }
    },
    150_000,
  );
});
