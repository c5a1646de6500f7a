// The `acp` agent with Baton's tools (`baton agent-tools`) on host sandboxes: each session gets the tool server in
// `mcpServers`, its turn-requests file in the task's working folder. The file is emptied before each prompt and
// read (bounded) after it: an `ask_user` makes the turn's reply a `clarify` carrying the question; after an
// `open_pull_request` the service pushes the task's branch (`baton/<task id>`, as the scripted agent names it)
// from the agent's checkout and the reply carries the pull request, its body the disclosure (pull-request/).
import { mkdir, open, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import {
  AGENT_TOOLS_LIMITS,
  buildAgentToolsServerEntry,
  readTurnRequests,
  type TurnRequests,
} from "../../../../agent-tools/index.js";
import { createSanitiser } from "../../../../evidence/index.js";
import type { ActivityRecord, AgentReply, RunTurnInput, TurnResult } from "../port.js";
import { finishPullRequest, type PullRequestFinishOptions } from "../pull-request/index.js";
import { agentEnvironment } from "./live-process.js";
import { type AcpAgent, type AcpAgentOptions, createAcpAgent } from "./runner.js";
import { EMPTY_TURN, MAX_REPLY_CHARS } from "./turn-result.js";

export interface AcpAgentWithToolsOptions extends Omit<AcpAgentOptions, "mcpServers"> {
  /** How `baton` runs on the service's machine: an absolute Node and the built CLI, e.g. `[execPath, bin.js]`. */
  baton: { command: string; args?: readonly string[] };
  /** Where a host sandbox's branch is pushed and with what header (default: the sandbox's BATON_GIT_URL). */
  push?: Pick<PullRequestFinishOptions, "gitUrl" | "gitAuthHeader" | "timeoutMs">;
}

/** The turn-requests file of a task's working folder (in its HOME, which only the task's agent writes). */
export function turnRequestsFile(workdir: string): string {
  return join(resolve(workdir), "home", ".baton", "turn-requests.jsonl");
}

export function createAcpAgentWithTools(options: AcpAgentWithToolsOptions): AcpAgent {
  const inner = createAcpAgent({
    ...options,
    mcpServers: (input) => [
      buildAgentToolsServerEntry({
        baton: options.baton,
        requestsFile: turnRequestsFile(input.sandbox.workdir),
      }),
    ],
  });
  return {
    ...inner,
    name: "acp",
    async runTurn(input) {
      const file = turnRequestsFile(input.sandbox.workdir);
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      // Only this turn's calls count.
      await writeFile(file, "", { mode: 0o600 });
      const result = await inner.runTurn(input);
      const applied = applyRequests(result, readTurnRequests(await readBounded(file)), input);
      if (!applied.pullRequest) return applied.result;
      const { result: replied } = applied;
      const activity = replied.activity ? { activity: replied.activity } : {};
      // A stopped turn pushes nothing (or stops pushing): the member stopped the work, not just the agent.
      const stopped = {
        kind: "error",
        code: "stopped",
        reason: "the turn was stopped",
        ...activity,
      } as const;
      if (input.signal.aborted) return stopped;
      const finished = await finishPullRequest(input, applied.pullRequest, {
        ...options.push,
        baton: options.baton,
        hostEnv: agentEnvironment(options.baseEnv, input.sandbox.env),
      });
      if (input.signal.aborted) return stopped;
      if (!finished.ok)
        return {
          kind: "error",
          code: "agent_failed",
          reason: `the pull request could not be opened: ${finished.reason}`,
          ...activity,
        };
      if (replied.kind !== "reply") return replied;
      return { ...replied, reply: { ...replied.reply, pullRequest: finished.pullRequest } };
    },
  };
}

/** The file's first bytes up to the tool server's own bound (it never writes more); missing is empty. */
async function readBounded(file: string): Promise<string> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, "r");
  } catch {
    return "";
  }
  try {
    const buffer = Buffer.alloc(AGENT_TOOLS_LIMITS.fileBytes);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** The turn's result with its requests applied, and the pull request to finish when the turn answered. */
function applyRequests(
  result: TurnResult,
  requests: TurnRequests,
  input: RunTurnInput,
): { result: TurnResult; pullRequest?: NonNullable<TurnRequests["pullRequest"]> } {
  if (!requests.clarify && !requests.pullRequest && requests.skipped === 0) return { result };
  const clean = (text: string) => createSanitiser({ secrets: input.sandbox.secrets }).sanitise(text).text;
  const activity: ActivityRecord[] = [...(result.activity ?? []), ...toolRecords(requests, clean)];
  const text = result.kind === "reply" ? result.reply.body : "";
  // An agent that asked and said nothing more ended with an empty turn: the question is its reply.
  const answered = result.kind === "reply" || (result.kind === "error" && result.reason.endsWith(EMPTY_TURN));
  if (!answered) return { result: { ...result, activity } };
  const reply: AgentReply = requests.clarify
    ? { kind: "clarify", body: bound(clean(requests.clarify.question).trim(), text) }
    : result.kind === "reply"
      ? { ...result.reply }
      : { kind: "response", body: "The agent asked to open a pull request." };
  const applied: TurnResult = { kind: "reply", reply, activity };
  return requests.pullRequest ? { result: applied, pullRequest: requests.pullRequest } : { result: applied };
}

/** The question, then the agent's text if any, within the reply's bound. */
function bound(question: string, text: string): string {
  const body = text.trim() === "" ? question : `${question}\n\n${text.trim()}`;
  return body.length <= MAX_REPLY_CHARS ? body : body.slice(0, MAX_REPLY_CHARS);
}

function toolRecords(requests: TurnRequests, clean: (text: string) => string): ActivityRecord[] {
  const at = new Date().toISOString();
  const records: ActivityRecord[] = [];
  if (requests.clarify)
    records.push({
      at,
      kind: "baton_tool",
      data: { tool: "ask_user", question: clean(requests.clarify.question) },
    });
  if (requests.pullRequest)
    records.push({
      at,
      kind: "baton_tool",
      data: {
        tool: "open_pull_request",
        title: clean(requests.pullRequest.title),
        ...(requests.pullRequest.body === undefined ? {} : { body: clean(requests.pullRequest.body) }),
        draft: requests.pullRequest.draft,
        ...(requests.pullRequest.checks === undefined
          ? {}
          : {
              checks: requests.pullRequest.checks.map((c) => ({
                ...c,
                name: clean(c.name),
                ...(c.note === undefined ? {} : { note: clean(c.note) }),
              })),
            }),
      },
    });
  if (requests.skipped > 0) records.push({ at, kind: "baton_tool", data: { skipped: requests.skipped } });
  return records;
}
