// The agent port (DESIGN "Task engine"): one call per turn. An adapter gets the task, its conversation so far,
// the sandbox to work in and a signal that aborts when the turn is stopped; it answers with a reply (its answer
// or a question), optionally a pull request it pushed (with its description and draft flag) and files it
// produced, or an error.
import { z } from "zod";
import type { StreamingProcess } from "../processes/streaming-process.js";

export interface AgentTask {
  id: string;
  workspaceId: string;
  title: string | null;
  repo: string | null;
  source: string;
}

export interface ConversationEntry {
  id: string;
  role: "user" | "agent" | "platform";
  kind: "message" | "response" | "clarify" | "error";
  body: string;
  createdAt: string;
}

/** A sandbox box (the service runs a sandbox driver): commands run inside it, not on the service's machine. */
export interface SandboxBox {
  /** Runs `argv` in the box with the turn's variables added; output is bounded; the limit and signal end it. */
  exec(
    argv: readonly string[],
    options: { stdin?: string; env?: Record<string, string>; timeoutMs: number; signal?: AbortSignal },
  ): Promise<{ exitCode: number; stdout: string; stderr: string; timedOut: boolean }>;
  /** Where the service installed a program of its machine in the box (the `command` agent's), if it did. */
  programPath(hostPath: string): string | undefined;
  /**
   * Starts a long-lived command in the box with its standard streams open (a coding agent over ACP), with the
   * turn's variables added; it has no time limit of its own and ends with the box.
   */
  spawn(
    argv: readonly string[],
    options: { env?: Record<string, string>; cwd?: string },
  ): Promise<StreamingProcess>;
  /** The agent's home in the box. */
  readonly home: string;
  /** Where the task's repository is checked out in the box (`~/checkouts/<owner>/<name>`), when it has one. */
  readonly checkout?: string;
}

/** Where a turn runs: a working folder and the variables an agent program gets (BATON_* among them). */
export interface TurnSandbox {
  id: string;
  /** A folder on the service's machine for adapters that work there (the scripted agent). */
  workdir: string;
  /** The agent program's variables: all of them on the host; in a box, the turn's on top of the box's own. */
  env: Readonly<Record<string, string>>;
  /** Values the adapter must never let into a reply (the sandbox's credentials). */
  secrets: readonly { name: string; value: string }[];
  /** Present when the turn's sandbox is a box of the sandbox manager: the agent program runs in it. */
  box?: SandboxBox;
}

export interface RunTurnInput {
  task: AgentTask;
  conversation: readonly ConversationEntry[];
  sandbox: TurnSandbox;
  signal: AbortSignal;
}

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
/** The longest pull-request description a code host takes (GitHub's limit). */
export const PULL_REQUEST_BODY_CHARS = 65_536;
const BRANCH = /^(?!.*\.\.)(?!\/)(?!.*\/$)[A-Za-z0-9._/-]{1,200}$/;

/** The reply an agent program prints on stdout, and what every adapter returns for a successful turn. */
export const AgentReplySchema = z.object({
  kind: z.enum(["response", "clarify"]),
  body: z.string().min(1).max(100_000),
  pullRequest: z
    .object({
      repo: z.string().regex(REPO, "must be owner/name").optional(),
      branch: z.string().regex(BRANCH, "must be a branch name"),
      title: z.string().min(1).max(200).optional(),
      /** The pull request's description (the `acp` adapter: the disclosure); unset: the code host's default. */
      body: z.string().max(PULL_REQUEST_BODY_CHARS).optional(),
      /** Open it, or turn it back, into a draft (default false). */
      draft: z.boolean().optional(),
    })
    .optional(),
  files: z.array(z.string().min(1).max(500)).max(100).optional(),
});
export type AgentReply = z.infer<typeof AgentReplySchema>;

/**
 * One thing an agent did during a turn (the `acp` adapter records the agent's `session/update`s and the permission
 * requests it answered): kept apart from the conversation, never posted to it. Every text in it is sanitised.
 */
export interface ActivityRecord {
  /** When it arrived (ISO 8601). */
  at: string;
  /** The update's kind (`tool_call`, `plan`, `agent_message_chunk`, …), `permission`, or `dropped` (the marker). */
  kind: string;
  data: Readonly<Record<string, unknown>>;
}

export type TurnResult = (
  | { kind: "reply"; reply: AgentReply }
  | { kind: "error"; code: "agent_failed" | "timed_out" | "invalid_reply" | "stopped"; reason: string }
  | { kind: "needs_access"; reason: string }
) & {
  /** What the agent did, in order, when the adapter records it (bounded; the oldest dropped behind a marker). */
  activity?: readonly ActivityRecord[];
};

export interface AgentRunner {
  readonly name: string;
  runTurn(input: RunTurnInput): Promise<TurnResult>;
  /** The task was stopped: anything the adapter keeps for it between turns (a live agent process) ends. */
  release?(taskId: string): Promise<void>;
  /** The service stops: everything the adapter keeps ends. */
  close?(): Promise<void>;
}
