// Runs turns: begins each running turn in the store under this instance's claim (turn-claims.ts), gives it a
// sandbox and the agent port, opens the pull request the agent pushed, and records the end, then runs whatever
// turns that freed. On start it recovers what a crash left (engine.recover) of the turns no live instance holds;
// every lease/3 it renews its claims, aborts turns it no longer holds (stopped or taken over elsewhere) and takes
// over running turns whose instance died. On stop it aborts turns in hand and gives them back `running` without
// counting the attempt, so the next start, or another instance at once, runs them again.
import type { Logger } from "pino";
import { describeThrown, isBatonError } from "../../../errors.js";
import type { AgentRunner, AgentTask, ConversationEntry, TurnResult } from "../../adapters/agents/port.js";
import type { Codehost } from "../../adapters/codehost/port.js";
import type { TurnSandboxProvider } from "../../adapters/sandboxes/host-sandboxes.js";
import { expireOthersClaims, renewLeasesOf } from "../../store/claims.js";
import type { Store } from "../../store/store.js";
import { WAKE_CHANNELS } from "../../store/wake-channels.js";
import { type LeaseSettings, renewEveryMs } from "../leases.js";
import {
  beginTurn,
  finishTurn,
  markPullRequestMerged,
  recover,
  type TurnFinish,
  takeOverTurn,
} from "./engine.js";
import { conversationOf, getTask, type TaskRow } from "./task-store.js";
import { claimableRunningTurns } from "./turn-claims.js";

export interface TaskRuntimeOptions {
  db: Store;
  now: () => Date;
  logger: Logger;
  agent: AgentRunner;
  sandboxes: TurnSandboxProvider;
  codehost: Codehost;
  /** How writes commit (group commit when the store offers it); default: a transaction each. */
  commit?: <T>(work: () => Promise<T>) => Promise<T>;
  /** How often open pull requests are checked for a merge (0: never). */
  pullRequestSweepMs?: number;
  /** The instance id its claims on turns are recorded under. */
  owner: string;
  lease: LeaseSettings;
}

export class TaskRuntime {
  private readonly executing = new Map<string, AbortController>();
  private readonly inFlight = new Set<Promise<void>>();
  /** Each executing turn's run, so a caller can wait for the turn's end to be recorded (whenDone). */
  private readonly runs = new Map<string, Promise<void>>();
  private accepting = false;
  private stopping = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  /** Turns begun here and not yet ended, with the attempt this instance runs. */
  private readonly held = new Map<string, number>();
  private leaseTimer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopListening: (() => Promise<void>) | undefined;

  private readonly commit: <T>(work: () => Promise<T>) => Promise<T>;

  constructor(private readonly options: TaskRuntimeOptions) {
    this.commit = options.commit ?? ((work) => options.db.transaction(work));
  }

  isAccepting(): boolean {
    return this.accepting;
  }

  /** Recovers after a restart and starts executing every running turn. */
  async start(): Promise<void> {
    const { db, now, owner, logger } = this.options;
    if (db.engine === "sqlite") {
      // Only this process can be using a SQLite store: claims of an earlier process are a dead instance's.
      const expired = await db.transaction(async () => expireOthersClaims(db, "task_turns", owner));
      if (expired > 0) logger.info({ count: expired }, "taking over turns an earlier process left running");
    }
    // A member's stop that arrived at another instance reaches the turn here at once, not at the next lease tick.
    this.stopListening = await db.listen(WAKE_CHANNELS.turnStops, (turnId) => this.abortTurn(turnId));
    const running = await db.transaction(async () => recover(db, now(), owner));
    // Recovery awaited the store: a stop() that came meanwhile wins, and the engine stays closed.
    if (this.stopping) return;
    this.accepting = true;
    this.runTurns(running);
    this.leaseTimer = setInterval(() => {
      this.ticking ??= this.tickLeases().finally(() => {
        this.ticking = undefined;
      });
    }, renewEveryMs(this.options.lease));
    this.leaseTimer.unref();
    const every = this.options.pullRequestSweepMs ?? 0;
    if (every > 0) {
      this.sweepTimer = setInterval(() => {
        this.sweeping ??= this.sweepPullRequests().finally(() => {
          this.sweeping = undefined;
        });
      }, every);
      this.sweepTimer.unref();
    }
  }

  runTurns(turnIds: readonly string[]): void {
    for (const id of turnIds) {
      if (this.executing.has(id) || this.stopping) continue;
      const controller = new AbortController();
      this.executing.set(id, controller);
      const run = this.execute(id, controller).finally(() => {
        this.executing.delete(id);
        this.inFlight.delete(run);
        this.runs.delete(id);
      });
      this.inFlight.add(run);
      this.runs.set(id, run);
    }
  }

  /** Resolves once the turn's execution here has ended and its end is recorded; at once when it is not executing. */
  whenDone(turnId: string): Promise<void> {
    return this.runs.get(turnId) ?? Promise.resolve();
  }

  abortTurn(turnId: string): void {
    this.executing.get(turnId)?.abort();
  }

  /** Turns executing right now (for tests and the bench). */
  get busy(): number {
    return this.executing.size;
  }

  async stop(): Promise<void> {
    this.accepting = false;
    this.stopping = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.leaseTimer) clearInterval(this.leaseTimer);
    await this.stopListening?.();
    // A renewal in flight would otherwise renew a claim after it is given back below.
    await this.ticking;
    for (const controller of this.executing.values()) controller.abort();
    await Promise.allSettled([...this.inFlight, this.sweeping]);
  }

  private async execute(turnId: string, controller: AbortController): Promise<void> {
    const { db, now, logger } = this.options;
    // The request that started the turn answers first; beginning it is the runtime's own write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const { owner, lease } = this.options;
    const begun = await this.commit(() =>
      beginTurn(
        db,
        turnId,
        now(),
        (task) => this.options.sandboxes.credentialsFor(toAgentTask(task), now()),
        { owner, leaseMs: lease.leaseMs },
      ),
    ).catch((error: unknown) => {
      logger.error({ turnId, err: describeThrown(error) }, "turn could not begin");
      return { kind: "gone" as const };
    });
    if (begun.kind === "gone") return;
    if (begun.kind === "paused") return this.runTurns(begun.started);
    const { attempt, task, prepared: credentials } = begun;
    this.held.set(turnId, attempt);
    try {
      await this.runBegun(turnId, attempt, task, credentials, controller);
    } finally {
      this.held.delete(turnId);
    }
  }

  private async runBegun(
    turnId: string,
    attempt: number,
    task: TaskRow,
    credentials: Awaited<ReturnType<TurnSandboxProvider["credentialsFor"]>>,
    controller: AbortController,
  ): Promise<void> {
    const { db, now, logger, owner } = this.options;
    let finish: TurnFinish;
    try {
      const agentTask = toAgentTask(task);
      const sandbox = await this.options.sandboxes.sandboxFor(agentTask, credentials);
      const conversation = (await conversationOf(db, task.id)).map(toConversationEntry);
      const result = await this.options.agent.runTurn({
        task: agentTask,
        conversation,
        sandbox,
        signal: controller.signal,
      });
      finish = { ...(await this.toFinish(task, result)), activity: result.activity };
    } catch (error) {
      logger.error({ turnId, err: describeThrown(error) }, "turn failed");
      // A refusal that names what to fix (a `.batonrc.json` lint problem: keys and rules, never values) is said in
      // the conversation; anything else stays in the log.
      finish = {
        kind: "error",
        code: "internal",
        reason:
          isBatonError(error) && error.code === "invalid_input"
            ? `the task's sandbox could not be made: ${error.message}`
            : "the service could not run the turn",
      };
    }
    if (this.stopping) {
      // Shutdown, not a crash: the turn stays `running` and the next start (or another instance, at once) runs it
      // again without using up a try.
      await db.run(
        `UPDATE task_turns SET attempts = attempts - 1, claimed_by = NULL, lease_until_ms = NULL
         WHERE id = ? AND state = 'running' AND attempts = ? AND claimed_by = ?`,
        [turnId, attempt, owner],
      );
      return;
    }
    const ended = await this.commit(() => finishTurn(db, turnId, attempt, finish, now()));
    this.runTurns(ended.started);
    // The task stopped working (this turn ended, or a member stopped it while it ran): its sandbox settles.
    const after = await getTask(db, task.id);
    if (after && after.open_turn_id === null)
      await this.settle(task, after.status === "cancelled" ? "cancelled" : "finished");
  }

  /** One lease period: renew this instance's claims, abort turns it no longer holds, take over dead ones'. */
  private async tickLeases(): Promise<void> {
    const { db, now, owner, lease, logger } = this.options;
    try {
      await renewLeasesOf(db, { table: "task_turns", owner, leaseMs: lease.leaseMs, now: now().getTime() });
      await this.abortLost();
      await this.takeOver();
    } catch (error) {
      logger.error({ err: describeThrown(error) }, "turn leases could not be renewed or swept");
    }
  }

  /** A turn stopped, or taken over after a stall, by another instance goes on here no longer: its result is stale. */
  private async abortLost(): Promise<void> {
    const held = [...this.held];
    if (held.length === 0) return;
    const rows = (await this.options.db.all(
      `SELECT id, state, attempts, claimed_by FROM task_turns WHERE id IN (${held.map(() => "?").join(", ")})`,
      held.map(([id]) => id),
    )) as { id: string; state: string; attempts: number; claimed_by: string | null }[];
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const [id, attempt] of held) {
      const row = byId.get(id);
      const ours =
        row?.state === "running" && row.attempts === attempt && row.claimed_by === this.options.owner;
      if (!ours && this.held.get(id) === attempt) this.abortTurn(id);
    }
  }

  /** Running turns no live instance holds: rerun here, or failed `interrupted` after too many tries. */
  private async takeOver(): Promise<void> {
    const { db, now, owner, logger } = this.options;
    for (const turn of await claimableRunningTurns(db, owner, now().getTime())) {
      if (this.stopping) return;
      if (this.executing.has(turn.id)) continue;
      const started = await this.commit(() => takeOverTurn(db, turn.id, owner, now()));
      if (turn.claimed_by !== null && turn.claimed_by !== owner)
        logger.warn(
          { turnId: turn.id, from: turn.claimed_by, rerun: started.includes(turn.id) },
          "took over a turn whose instance stopped renewing its lease",
        );
      this.runTurns(started);
    }
  }

  /** A member stopped a task's queued turn (a running one settles as its turn ends). */
  async taskStopped(taskId: string): Promise<void> {
    const task = await getTask(this.options.db, taskId);
    if (task && task.open_turn_id === null && task.status === "cancelled")
      await this.settle(task, "cancelled");
  }

  private async settle(task: TaskRow, how: "finished" | "cancelled"): Promise<void> {
    const stillIdle = async () => (await getTask(this.options.db, task.id))?.open_turn_id === null;
    // A stopped task's live agent ends now; a finished one's waits for a follow-up (the adapter ends it when idle).
    const released = how === "cancelled" ? this.options.agent.release?.(task.id) : undefined;
    const sandbox = this.options.sandboxes.settle?.(toAgentTask(task), how, stillIdle);
    const settling = released || sandbox ? Promise.all([released, sandbox]).then(() => undefined) : undefined;
    if (!settling) return;
    const tracked: Promise<void> = settling
      .catch((error: unknown) =>
        this.options.logger.error(
          { taskId: task.id, err: error instanceof Error ? error.message : "non-Error thrown" },
          "the task's sandbox or live agent could not settle",
        ),
      )
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private async toFinish(task: TaskRow, result: TurnResult): Promise<TurnFinish> {
    if (result.kind === "error") return { kind: "error", code: result.code, reason: result.reason };
    if (result.kind === "needs_access") return { kind: "needs_access", reason: result.reason };
    const { reply } = result;
    let pullRequest: Extract<TurnFinish, { kind: "reply" }>["pullRequest"] = null;
    if (reply.pullRequest) {
      const repo = reply.pullRequest.repo ?? task.repo;
      if (!repo)
        return {
          kind: "error",
          code: "invalid_reply",
          reason: "the agent pushed a branch but named no repository",
        };
      const connected = await this.options.db.get(
        "SELECT 1 FROM repositories WHERE workspace_id = ? AND slug = ? AND connected = 1",
        [task.workspace_id, repo],
      );
      if (!connected)
        return { kind: "error", code: "invalid_reply", reason: `${repo} is not connected to the workspace` };
      try {
        const opened = await this.options.codehost.openPullRequest({
          workspaceId: task.workspace_id,
          repo,
          branch: reply.pullRequest.branch,
          title: reply.pullRequest.title ?? task.title ?? reply.pullRequest.branch,
          taskId: task.id,
          body: reply.pullRequest.body,
          draft: reply.pullRequest.draft,
        });
        pullRequest = { repo, branch: reply.pullRequest.branch, ...opened };
      } catch (error) {
        return {
          kind: "error",
          code: "agent_failed",
          reason: `the pull request could not be opened: ${error instanceof Error ? error.message : "unknown error"}`,
        };
      }
    }
    return {
      kind: "reply",
      reply: { kind: reply.kind, body: reply.body },
      files: reply.files ?? [],
      pullRequest,
    };
  }

  /** Marks tasks whose pull request the code host merged. */
  async sweepPullRequests(): Promise<void> {
    const { db, now, codehost } = { ...this.options };
    const open = (await db.all(
      "SELECT id, workspace_id, repo, pr_number FROM tasks WHERE pr_number IS NOT NULL AND pr_merged = 0 AND pr_closed = 0",
    )) as {
      id: string;
      workspace_id: string;
      repo: string;
      pr_number: number;
    }[];
    for (const task of open) {
      if (this.stopping) return;
      const merged = await codehost
        .isMerged({ workspaceId: task.workspace_id, repo: task.repo, number: task.pr_number })
        .catch(() => false);
      if (merged) await this.commit(() => markPullRequestMerged(db, task.id, now()));
    }
  }
}

const toAgentTask = (task: TaskRow): AgentTask => ({
  id: task.id,
  workspaceId: task.workspace_id,
  title: task.title,
  repo: task.repo,
  source: task.source,
});

const toConversationEntry = (entry: {
  id: string;
  role: ConversationEntry["role"];
  kind: ConversationEntry["kind"];
  body: string;
  created_at: string;
}): ConversationEntry => ({
  id: entry.id,
  role: entry.role,
  kind: entry.kind,
  body: entry.body,
  createdAt: entry.created_at,
});
