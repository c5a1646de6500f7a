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
import type { ActivityRecord, AgentReply, RunTurnInput, SandboxBox, TurnResult } from "../port.js";
import { finishPullRequest, type PullRequestFinishOptions } from "../pull-request/index.js";
import { type BoxAgentSetup, missingKeyReason } from "./box-agent-setup.js";
import { BOX_BATON, boxRequestsFile, prepareBoxTurn, readBoxRequests } from "./box-workspace.js";
import { agentEnvironment } from "./live-process.js";
import { type AcpAgent, type AcpAgentOptions, createAcpAgent } from "./runner.js";
import { EMPTY_TURN, MAX_REPLY_CHARS } from "./turn-result.js";

export interface AcpAgentWithToolsOptions extends Omit<AcpAgentOptions, "mcpServers"> {
  /** How `baton` runs on the service's machine: an absolute Node and the built CLI, e.g. `[execPath, bin.js]`. */
  baton: { command: string; args?: readonly string[] };
  /** A catalog agent's set-up in the box before each start (its key, files and the proxy's CA). */
  boxAgent?: BoxAgentSetup;
  /** How `baton` runs in a box (default: the image's Node and baton layer, BOX_BATON). */
  boxBaton?: { command: string; args?: readonly string[] };
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
    // In a box, the box's own baton and a file in its home; on the host, this service's and the working folder's.
    mcpServers: ({ sandbox }) => [
      sandbox.box
        ? buildAgentToolsServerEntry({
            baton: options.boxBaton ?? BOX_BATON,
            requestsFile: boxRequestsFile(sandbox.box),
          })
        : buildAgentToolsServerEntry({
            baton: options.baton,
            requestsFile: turnRequestsFile(sandbox.workdir),
          }),
    ],
  });
  return {
    ...inner,
    name: "acp",
    async runTurn(input) {
      const { box } = input.sandbox;
      if (box) {
        const ready = await prepareBoxTurn(
          box,
          input.sandbox.env,
          `baton/${input.task.id}`,
          options.boxAgent,
          input.signal,
        );
        if (ready.kind === "failed") return { kind: "error", code: "agent_failed", reason: ready.reason };
        if (ready.kind === "missing_key" && options.boxAgent) {
          await requestModelKey(box, options.boxAgent, input);
          return { kind: "needs_access", reason: missingKeyReason(options.boxAgent, input.task.repo) };
        }
        // The CA's paths under the turn's variables: the same every turn, so a live agent stays reusable.
        const turn =
          ready.kind === "ready" && Object.keys(ready.env).length > 0
            ? { ...input, sandbox: { ...input.sandbox, env: { ...ready.env, ...input.sandbox.env } } }
            : input;
        const result = await inner.runTurn(turn);
        return finish(turn, result, readTurnRequests(await readBoxRequests(box)));
      }
      const file = turnRequestsFile(input.sandbox.workdir);
      await mkdir(dirname(file), { recursive: true, mode: 0o700 });
      // Only this turn's calls count.
      await writeFile(file, "", { mode: 0o600 });
      const result = await inner.runTurn(input);
      return finish(input, result, readTurnRequests(await readBounded(file)));
    },
  };

  /** The turn's tool requests applied to its result; an `open_pull_request` pushes the branch and opens it. */
  async function finish(
    input: RunTurnInput,
    result: TurnResult,
    requests: TurnRequests,
  ): Promise<TurnResult> {
    const applied = applyRequests(result, requests, input);
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
      hostEnv: agentEnvironment(options.baseEnv, input.sandbox, options.env),
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
  }
}

/**
 * Records the missing key as an `api_key` capability request for the model's host, through the box's own baton
 * (the operations transport), so the workspace's owners are asked as for any other access. Best effort: the
 * turn pauses on access either way.
 */
async function requestModelKey(box: SandboxBox, setup: BoxAgentSetup, input: RunTurnInput): Promise<void> {
  if (!input.task.repo) return;
  await box
    .exec(
      [
        BOX_BATON.command,
        ...BOX_BATON.args,
        "env",
        "request-capability",
        "--repo",
        input.task.repo,
        "--capability",
        "api_key",
        "--target",
        setup.modelHost,
        "--reason",
        `${setup.agentName} needs its model API key (${setup.keyVariable}) for ${setup.modelHost}`,
        "--json",
      ],
      { env: { ...input.sandbox.env }, timeoutMs: 30_000, signal: input.signal },
    )
    .catch(() => undefined);
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
