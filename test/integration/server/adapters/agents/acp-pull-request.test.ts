// `open_pull_request` end to end through the service (issue 34 point 3): the task engine in process with the real
// `acp` adapter on host sandboxes, the scripted ACP agent (test/helpers/acp-agent.mjs, `#change`) cloning from the
// real local code host and calling the tool through the real `baton agent-tools` server, real git, the built
// `baton disclose`. At the end of the turn the service pushes the task's branch (committing what the agent left
// uncommitted), and the pull request's body is the disclosure: "If a required check cannot run, the pull request
// stays a draft"; "Raw output and secrets are never included" (reference section 2).
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_PATHS } from "../../../../../src/server/surfaces/api/wire.js";
import { BATON_BIN } from "../../../../helpers/cli.js";
import { savedHandoff } from "../../../../helpers/handoff.js";
import { type ApiHarness, createApiHarness, freshToken, until, waitForStatus } from "../../../api/harness.js";

const AGENT_SCRIPT = join(import.meta.dirname, "..", "..", "..", "..", "helpers", "acp-agent.mjs");
const AGENTS_MD = "# Rules\n\nRun `npm test` before you push.\n";

let h: ApiHarness;
beforeAll(async () => {
  h = await createApiHarness({
    tasks: {
      agentAcp: { argv: [process.execPath, AGENT_SCRIPT], timeoutMs: 60_000 },
      agentEnv: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    },
  });
});
afterAll(async () => {
  await h?.close();
});

/** Starts a task on acme/api whose agent works the repository as `spec` says. */
async function startChange(spec: Record<string, unknown>): Promise<string> {
  const prompt = `Fix the login test #change\nchange-spec: ${JSON.stringify({ repo: "acme/api", ...spec })}`;
  const answer = await h.call("POST", API_PATHS.tasks("ws_acme"), {
    token: await freshToken(h),
    body: { prompt, repo: "acme/api" },
  });
  expect(answer.status).toBe(202);
  return answer.body.task.id as string;
}

const bare = () => join(h.dir, "work", "codehost", "ws_acme", "acme", "api.git");
const homeOf = (taskId: string) => join(h.dir, "work", "sandboxes", taskId, "home");
const git = async (args: string[]) => (await execa("git", ["--git-dir", bare(), ...args])).stdout;

interface PullRow {
  number: number;
  title: string;
  body: string;
  draft: number;
}
const pullOf = async (taskId: string) =>
  (await h.db.get("SELECT number, title, body, draft FROM pull_requests WHERE task_id = ?", [taskId])) as
    | PullRow
    | undefined;

/** What `baton disclose` prints in the task's sandbox, run after the turn by the test itself. */
async function disclosureIn(taskId: string, checks: string[]): Promise<{ markdown: string; draft: boolean }> {
  const run = await execa(
    process.execPath,
    [BATON_BIN, "disclose", "acme/api", "--json", ...checks.flatMap((c) => ["--check", c])],
    { env: { PATH: process.env.PATH, HOME: homeOf(taskId), BATON_LOG_LEVEL: "" }, extendEnv: false },
  );
  return JSON.parse(run.stdout);
}

const handoffFile = {
  ".baton/handoffs/acme__api.json": JSON.stringify(savedHandoff("$HOME/checkouts/acme/api")),
};

describe("open_pull_request through the service (host sandbox, local code host)", () => {
  it("the agent's uncommitted change is committed by Baton and pushed as baton/<task>; every required check passed: not a draft, the body is the disclosure", async () => {
    const id = await startChange({
      files: { "AGENTS.md": AGENTS_MD, "src/fix.ts": "export const fixed = true;\n" },
      homeFiles: handoffFile,
      pr: { title: "Fix the flaky login test", checks: [{ name: "npm test", result: "passed" }] },
    });
    await waitForStatus(h, id, ["pr_open"]);
    const branch = `baton/${id}`;
    expect(await git(["show", `${branch}:src/fix.ts`])).toBe("export const fixed = true;");
    expect(await git(["log", "-1", "--format=%an <%ae>|%s", branch])).toBe(
      "Baton <baton@baton.invalid>|baton: Fix the flaky login test",
    );
    const pull = await pullOf(id);
    const disclosure = await disclosureIn(id, ["npm test=passed"]);
    expect(disclosure.draft).toBe(false);
    expect(pull).toEqual({
      number: expect.any(Number),
      title: "Fix the flaky login test",
      body: disclosure.markdown,
      draft: 0,
    });
    expect(pull!.body).toContain("**Ready for review:** every required check ran and passed.");
  });

  it("a required check that did not run makes it a draft though the agent did not ask; the agent's notes follow the disclosure; the sandbox's secrets never reach the body", async () => {
    const id = await startChange({
      files: { "AGENTS.md": AGENTS_MD, "src/fix.ts": "export const fixed = 2;\n" },
      commit: "fix the test",
      homeFiles: { ...handoffFile, "token.txt": "$BATON_TURN_TOKEN" },
      pr: {
        title: "Fix it again",
        body: "Changed the parser. Token was $BATON_TURN_TOKEN",
        checks: [{ name: "npm test", result: "not_run", note: "needs postgres $BATON_TURN_TOKEN" }],
      },
    });
    await waitForStatus(h, id, ["pr_open"]);
    expect(await git(["show", `baton/${id}:src/fix.ts`])).toBe("export const fixed = 2;");
    // The agent's own commit is kept as it made it: nothing was left to commit.
    expect(await git(["log", "-1", "--format=%an|%s", `baton/${id}`])).toBe("Agent|fix the test");
    const pull = (await pullOf(id))!;
    expect(pull.draft).toBe(1);
    expect(pull.body).toContain("**Draft:** required check `npm test` did not run.");
    const [disclosure, notes] = pull.body.split("\n### Notes from the agent\n\n");
    // The check's note reached `baton disclose` already cleaned of the sandbox's secrets.
    const expected = await disclosureIn(id, ["npm test=not_run:needs postgres [REDACTED:BATON_TURN_TOKEN]"]);
    expect(disclosure).toBe(expected.markdown);
    expect(notes).toMatch(/^Changed the parser\. Token was \S+\n$/);
    // The helper left the turn token it was given (one of the sandbox's secrets) where the test can read it.
    const token = (await readFile(join(homeOf(id), "token.txt"), "utf8")).trim();
    expect(token.length).toBeGreaterThan(10);
    expect(pull.body).not.toContain(token);
    expect(pull.body).not.toContain(token.slice(0, 16));
  });

  it("a repository never activated in the sandbox gets the disclosure saying so, as a draft; the agent asking for a draft is honoured", async () => {
    const id = await startChange({ files: { "README.md": "hello\n" }, pr: { title: "Docs", draft: true } });
    await waitForStatus(h, id, ["pr_open"]);
    const pull = (await pullOf(id))!;
    expect(pull.draft).toBe(1);
    expect(pull.body).toContain("not activated in this sandbox");
    expect(pull.body).not.toContain("### Notes from the agent");
  });

  it("a follow-up that asks again updates the same pull request's body and draft flag", async () => {
    const id = await startChange({
      files: { "AGENTS.md": AGENTS_MD, "a.txt": "1\n" },
      homeFiles: handoffFile,
      pr: { title: "First", checks: [{ name: "npm test", result: "not_run" }] },
    });
    await waitForStatus(h, id, ["pr_open"]);
    const first = (await pullOf(id))!;
    expect(first.draft).toBe(1);
    const spec = {
      repo: "acme/api",
      files: { "a.txt": "2\n" },
      pr: { title: "Second", checks: [{ name: "npm test", result: "passed" }] },
    };
    const followUp = await h.call("POST", API_PATHS.messages("ws_acme", id), {
      token: await freshToken(h),
      body: { text: `now it runs #change\nchange-spec: ${JSON.stringify(spec)}` },
    });
    expect(followUp.status).toBeLessThan(300);
    const second = await until(async () => {
      const row = await pullOf(id);
      return row && row.title === "Second" ? row : undefined;
    }, "the follow-up's update of the pull request");
    expect(second).toEqual({
      number: first.number,
      title: "Second",
      body: (await disclosureIn(id, ["npm test=passed"])).markdown,
      draft: 0,
    });
    expect(await git(["show", `baton/${id}:a.txt`])).toBe("2");
  });

  it("an agent that asks for a pull request without a checkout fails the turn, saying why", async () => {
    const id = await startChange({ clone: false, pr: { title: "Nothing" } });
    const said = await until(async () => {
      const messages = (
        await h.call("GET", API_PATHS.messages("ws_acme", id), { token: await freshToken(h) })
      ).body.messages as { role: string; kind: string; body: string }[];
      return messages.find((m) => m.role === "platform" && m.kind === "error");
    }, "the failed turn's notice");
    expect(said.body).toMatch(
      /the pull request could not be opened: .*there is no git checkout of acme\/api/,
    );
    expect(await pullOf(id)).toBeUndefined();
  });
});
