// The `acp` agent: any coding agent that speaks the Agent Client Protocol, one live process and ACP session per
// task between turns. A turn reuses the task's live process when it may (live-process.ts); otherwise it starts
// one with a clean environment and loads the task's earlier session when the agent can, or starts a new session
// whose first prompt carries the conversation so far. Whatever the agent says is sanitised before it leaves here.
import { resolve } from "node:path";
import type { McpServer } from "@agentclientprotocol/sdk";
import { createSanitiser, type KnownSecret } from "../../../../evidence/index.js";
import { readVersion } from "../../../../version.js";
import type { AgentRunner, RunTurnInput, TurnResult } from "../port.js";
import { type ActivityLimits, DEFAULT_ACTIVITY_LIMITS } from "./activity-log.js";
import { type SpawnAgent, spawnHostAgent } from "./agent-process.js";
import { openSession } from "./handshake.js";

import { agentEnvironment, canReuse, environmentKey } from "./live-process.js";
import { buildPrompt } from "./prompt.js";
import type { AcpSession } from "./session.js";
import { createSessionMemory, type SessionMemory } from "./session-memory.js";
import { runPromptTurn } from "./turn.js";
import { TurnCollector } from "./turn-collector.js";
import { MAX_REPLY_CHARS, toTurnResult } from "./turn-result.js";

export interface AcpAgentOptions {
  /** The agent as reasons name it: its entry's id (`claude-code`) or its program. */
  agentName: string;
  /** The agent program and its arguments (no shell), e.g. `["gemini", "--acp"]`. */
  argv: readonly string[];
  /** The agent time limit of one turn. */
  timeoutMs: number;
  /** The service's variables: only PATH and HOME are taken, under the turn's sandbox variables (host only). */
  baseEnv: Readonly<Record<string, string | undefined>>;
  /** The agent's own fixed variables (its entry's), under the turn's sandbox variables. */
  env?: Readonly<Record<string, string>>;
  /** Starts the agent (default: a child process on the service's machine). */
  spawn?: SpawnAgent;
  /** Baton's tool server(s) for the task's session (default none). */
  mcpServers?: (input: RunTurnInput) => McpServer[];
  /** The session's working folder (default: the sandbox's working folder). */
  cwd?: (input: RunTurnInput) => string;
  /** The ACP session mode set right after `session/new` or `/load` (the entry's `sessionMode`, e.g. Codex's). */
  sessionMode?: string;
  /** `initialize` and `session/new` (or `/load`) together (default 30 s). */
  handshakeMs?: number;
  /** How long a stopped or timed-out turn may take to end after `session/cancel` (default 10 s). */
  cancelGraceMs?: number;
  /** How long after its start a process may take another turn (default 30 min; see live-process.ts). */
  reuseForMs?: number;
  /** Keep the agent's thought chunks in the activity (default false). */
  keepThoughts?: boolean;
  activityLimits?: ActivityLimits;
  /** The longest ACP message the agent may send (default 32 MiB, the SDK's). */
  maxLineBytes?: number;
  /** Where session ids outlive a process (default: in memory, for the service's lifetime). */
  sessions?: SessionMemory;
  now?: () => Date;
  /** Told when a task's agent process has started and when its session is open (`npm run bench -- agent`). */
  onPhase?: (event: { taskId: string; phase: "spawned" | "session_open"; atMs: number }) => void;
}

export interface AcpAgent extends AgentRunner {
  readonly name: "acp";
  /** Ends the task's live agent process, if any (the task is over). */
  release(taskId: string): Promise<void>;
  /** Ends every live agent process (the service stops). */
  close(): Promise<void>;
}

const STOPPED: TurnResult = { kind: "error", code: "stopped", reason: "the turn was stopped" };

interface Live {
  session: AcpSession;
  startedAtMs: number;
  environmentKey: string;
  /** The credentials the process was started with: it may still print them in a later turn. */
  secrets: readonly KnownSecret[];
  idle?: NodeJS.Timeout;
}

export function createAcpAgent(options: AcpAgentOptions): AcpAgent {
  const now = options.now ?? (() => new Date());
  const spawn = options.spawn ?? spawnHostAgent;
  const memory = options.sessions ?? createSessionMemory();
  const reuseForMs = options.reuseForMs ?? 30 * 60_000;
  const clientVersion = readVersion();
  const live = new Map<string, Live>();

  const end = async (taskId: string, which?: Live) => {
    const held = live.get(taskId);
    if (!held || (which && held !== which)) return;
    live.delete(taskId);
    clearTimeout(held.idle);
    await held.session.close();
  };

  const start = async (input: RunTurnInput, env: Record<string, string>) => {
    const remembered = await memory.get(input.task.id);
    const { box } = input.sandbox;
    // In a box the agent starts in its home there; on the host in the task's working folder.
    const agent = box
      ? await box.spawn(options.argv, { env, cwd: box.home })
      : await spawn(options.argv, { cwd: resolve(input.sandbox.workdir), env });
    options.onPhase?.({ taskId: input.task.id, phase: "spawned", atMs: Date.now() });
    const opened = await openSession(
      {
        agent,
        cwd: options.cwd?.(input) ?? (box ? (box.checkout ?? box.home) : resolve(input.sandbox.workdir)),
        mcpServers: options.mcpServers?.(input) ?? [],
        clientVersion,
        resumeSessionId: remembered?.sessionId ?? null,
        ...(options.sessionMode ? { sessionMode: options.sessionMode } : {}),
        handshakeMs: options.handshakeMs ?? 30_000,
        maxLineBytes: options.maxLineBytes ?? 32 * 1024 * 1024,
        newCollector: () =>
          new TurnCollector({
            limits: options.activityLimits ?? DEFAULT_ACTIVITY_LIMITS,
            keepThoughts: options.keepThoughts ?? false,
            // Beyond the reply's bound only the count matters; a little over it says "cut".
            maxReplyChars: MAX_REPLY_CHARS + 1,
            now,
          }),
      },
      input.signal,
    );
    if (opened.kind !== "open") return opened;
    options.onPhase?.({ taskId: input.task.id, phase: "session_open", atMs: Date.now() });
    const held: Live = {
      session: opened.session,
      startedAtMs: now().getTime(),
      environmentKey: environmentKey(env),
      secrets: input.sandbox.secrets,
    };
    live.set(input.task.id, held);
    return {
      kind: "open" as const,
      held,
      loaded: opened.loaded,
      seenThrough: remembered?.seenThrough ?? null,
    };
  };

  return {
    name: "acp",
    async runTurn(input): Promise<TurnResult> {
      const taskId = input.task.id;
      const env = agentEnvironment(options.baseEnv, input.sandbox, options.env);
      const key = environmentKey(env);
      let held = live.get(taskId);
      if (held) clearTimeout(held.idle);
      if (
        held &&
        !canReuse(
          { ...held, alive: held.session.alive },
          { environmentKey: key, nowMs: now().getTime() },
          reuseForMs,
        )
      ) {
        await end(taskId, held);
        held = undefined;
      }
      const secrets = [...input.sandbox.secrets, ...(held?.secrets ?? [])];
      const sanitiser = createSanitiser({ secrets });
      const context = {
        agentName: options.agentName,
        timeoutMs: options.timeoutMs,
        clean: (text: string) => sanitiser.sanitise(text).text,
      };
      if (input.signal.aborted) return STOPPED;
      let fresh = false;
      let seenThrough = (await memory.get(taskId))?.seenThrough ?? null;
      if (!held) {
        const started = await start(input, env);
        if (started.kind === "stopped") return STOPPED;
        if (started.kind === "failed") return toTurnResult({ ...started, activity: [] }, context);
        held = started.held;
        // A loaded session holds the earlier turns; a new one is told them.
        fresh = !started.loaded;
        seenThrough = started.loaded ? started.seenThrough : null;
      }
      const prompt = buildPrompt({ task: input.task, conversation: input.conversation, fresh, seenThrough });
      await memory.set(taskId, { sessionId: held.session.sessionId, seenThrough: prompt.seenThrough });
      const outcome = await runPromptTurn(held.session, prompt.blocks, {
        signal: input.signal,
        timeoutMs: options.timeoutMs,
        graceMs: options.cancelGraceMs ?? 10_000,
      });
      if (!held.session.alive) await end(taskId, held);
      else {
        const which = held;
        // An idle process is ended once it could no longer take a turn anyway.
        held.idle = setTimeout(() => void end(taskId, which), reuseForMs).unref();
      }
      return toTurnResult(outcome, context);
    },
    release: (taskId) => end(taskId),
    async close() {
      await Promise.all([...live.keys()].map((taskId) => end(taskId)));
    },
  };
}
