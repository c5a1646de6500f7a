// `npm run demo -- --agent codex` (issue 34): the real Codex from the sandbox image's agents layer works a task in a
// Docker box, offline, against the fake of the OpenAI Responses API behind the real `baton proxy`: it activates
// acme/api, edits AGENTS.md, runs `npm test` and opens a pull request whose body is Baton's disclosure. The run is
// the demo's own process, exactly as a newcomer types it; the assertions read what it printed, then look for
// anything it left behind (its box, its network namespace, its temporary folder).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";
import { removeDemoLogs } from "./demo-logs.js";

const demo = (...flags: string[]) =>
  // --skip-build: the test run's global setup has built dist/ and the sandbox image already.
  execa(process.execPath, [join(PROJECT_ROOT, "scripts", "demo.mjs"), "--skip-build", ...flags], {
    cwd: PROJECT_ROOT,
    reject: false,
    env: { BATON_LOG_LEVEL: "" },
  });

describe("npm run demo -- --agent <id>", () => {
  it("runs Codex in a box against its fake model: the edit, the pull request with the disclosure, the reply; the model got the key, the box a placeholder; nothing is left", async () => {
    const run = await demo("--agent", "codex");
    const out = run.stdout;
    removeDemoLogs(out);
    expect(run.exitCode, `${out}\n${run.stderr}`).toBe(0);
    for (const heading of [
      "choose the agent from the catalog",
      "a box for the agent: Docker, and the sandbox image",
      "the fake model API: a network namespace of its own",
      "start baton proxy: the model's host name pinned to the fake",
      "start baton serve with the agent on the Docker driver",
      "acme/api on the local code host",
      "sign in the client with that token, piped in",
      "the model key: a secret of acme/api",
      "start a task with baton start",
      "what the agent did in its turn",
      "the pull request on the local code host",
      "the key: the fake model received the real value",
      "done",
    ])
      expect(out).toContain(heading);
    expect(out).toContain("Codex: @zed-industries/codex-acp@0.16.0");
    // Commands as they are typed.
    expect(out).toMatch(
      /\$ baton serve --agent codex --sandbox-driver docker --proxy-url http:\/\/127\.0\.0\.1:\d+ /,
    );
    expect(out).toMatch(/\$ baton proxy --serve-url http:\/\/127\.0\.0\.1:\d+ --config proxy\.json --json/);
    // The agent's reply, followed by `baton start` as a person sees it.
    expect(out).toMatch(
      /\$ baton start -r acme\/api 'Say in AGENTS\.md[^\n]*'\nRepository: acme\/api\nStarted task (task_\w+)[^\n]*\nagent: I activated acme\/api, applied its Dockerfile and ran its startup[^\n]*\nTurn done \(pr_open\)\. Reply with: baton reply \1/,
    );
    // What Codex did, from the turn's activity: each scripted step ran as one of its own tools.
    const activity = out.slice(
      out.indexOf("what the agent did in its turn"),
      out.indexOf("the pull request on"),
    );
    for (const line of [
      "execute: baton env activate acme/api",
      "execute: baton dockerfile apply acme/api",
      "edit: Edit /home/agent/checkouts/acme/api/AGENTS.md",
      'execute: . "$HOME/.baton/environment.sh" && npm test',
      "baton: Say what npm test checks",
    ])
      expect(activity).toContain(line);
    expect(out).toContain("npm test's output, as the agent sent it to the model: # pass 3, # fail 0");
    // The pull request: the agent's edit on the task's branch, the disclosure with the check it ran.
    expect(out).toMatch(
      /pull request #1 "Say what npm test checks" \(ready for review\): file:\/\/\S+#pull\/1/,
    );
    expect(out).toContain("-Run `npm test` before pushing.\n+Run `npm test` before pushing: it checks");
    expect(out).toContain("  ## Environment disclosure: acme/api");
    expect(out).toContain("  **Ready for review:** every required check ran and passed.");
    expect(out).toContain("  | `npm test` | passed | – |");
    expect(out).toContain("  ### Notes from the agent");
    // The key: every request reached the fake with the real value in the vendor's header; the box has a placeholder.
    const [, requests, withKey] =
      /received (\d+) requests: (\d+) with the real key in authorization \(not shown\), 0 with it in any other header/.exec(
        out,
      ) ?? [];
    expect(Number(requests)).toBeGreaterThanOrEqual(8);
    expect(withKey).toBe(requests);
    expect(out).toMatch(/in the box: OPENAI_API_KEY=baton-secret-sec_[0-9a-f]{32} \(a placeholder/);
    expect(`${out}${run.stderr}`).not.toMatch(/demo-model-key-|btt_|btl_|btn_|token=/);

    // Nothing left: the box, the namespace, the temporary folder.
    const box = /sandboxes\/sbx_([0-9a-f]{24})/.exec(out)?.[1];
    expect(box).toBeDefined();
    expect(
      (await execa("docker", ["ps", "-aq", "--filter", `name=baton-sandbox-${box}`])).stdout.trim(),
    ).toBe("");
    const namespace = /in namespace (\S+);/.exec(out)?.[1];
    expect(namespace).toBeDefined();
    expect((await execa("ip", ["netns", "list"])).stdout).not.toContain(namespace);
    const tmp = /file:\/\/(\/\S+?)\/work\/codehost/.exec(out)?.[1];
    expect(tmp).toBeDefined();
    expect(existsSync(tmp!)).toBe(false);
  }, 300_000);

  it.each([
    [
      "an unknown id names the ones it runs",
      ["--agent", "claude"],
      'no agent "claude" in the catalog (src/server/adapters/agents/catalog.ts): the demo runs claude-code or codex',
    ],
    [
      "an agent without a fake model API says so",
      ["--agent", "gemini"],
      "the demo has no fake of Gemini CLI's model API (gemini) to run it against offline",
    ],
    [
      "no box (--no-docker): a real agent needs one, unlike the scripted agent",
      ["--agent=codex", "--no-docker"],
      "a real coding agent runs only in a box, and this machine cannot make one: --no-docker was given",
    ],
  ])("%s, and exits 1", async (_case, flags, said) => {
    const run = await demo(...flags);
    removeDemoLogs(run.stdout);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`demo failed: ${said}`);
  });
});
