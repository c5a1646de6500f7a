// The task engine as the service runs it: the code host and tracker ports (local unless given), sandboxes (host
// folders, or boxes of the sandbox manager with a driver), the agents (agents.ts: the operator's default, scripted
// from the seed's rules unless an agent program is configured, and each workspace's chosen catalog agent), the turn
// runtime, the rate limiter, and the context the API's operations use. Nothing runs until `start()`.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Logger } from "pino";
import { BATONRC_FILE } from "../../../config/batonrc.js";
import type { AgentEntry } from "../../adapters/agents/catalog.js";
import type { AgentRunner } from "../../adapters/agents/port.js";
import { createLocalCodehost } from "../../adapters/codehost/local-git.js";
import type { Codehost } from "../../adapters/codehost/port.js";
import { type CodehostPush, createPushAccessLookup } from "../../adapters/codehost/push-access.js";
import { createHostSandboxes } from "../../adapters/sandboxes/host-sandboxes.js";
import type { SandboxManager } from "../../adapters/sandboxes/manager.js";
import { createManagerSandboxes } from "../../adapters/sandboxes/turn-sandboxes.js";
import { createLocalTracker } from "../../adapters/tracker/local.js";
import type { Tracker } from "../../adapters/tracker/port.js";
import type { Store } from "../../store/store.js";
import type { AgentChoices } from "../agent/index.js";
import type { LeaseSettings } from "../leases.js";
import { createRateLimiter } from "../limits/create-limiter.js";
import type { RateLimiter } from "../limits/rate-limiter.js";
import { type AgentAcpSettings, type AgentCommandSettings, createTurnAgents } from "./agents.js";
import type { TaskContext } from "./context.js";
import { handOverTask } from "./engine.js";
import { TaskRuntime } from "./runtime.js";

export type { AgentAcpSettings, AgentCommandSettings } from "./agents.js";

export interface TaskServiceOptions {
  db: Store;
  now: () => Date;
  logger: Logger;
  /** This instance's id (its claims on turns) and the lease they hold for. */
  owner: string;
  lease: LeaseSettings;
  /** Holds `sandboxes/<task id>` and the local code host's bare repositories under `codehost/`. */
  workRoot: string;
  dashboardBase: () => string;
  serviceUrl: () => string;
  /** An agent program for the `command` adapter; without one the `scripted` agent answers. */
  agentCommand?: AgentCommandSettings | undefined;
  /** An ACP agent (`--agent acp`), given Baton's tools (`baton agent-tools`) in each session. */
  agentAcp?: AgentAcpSettings | undefined;
  /** An agent adapter given directly (tests). */
  agent?: AgentRunner | undefined;
  /** A turn's limit for a workspace's chosen catalog agent (`--agent-timeout`; default 1800 s). */
  agentTimeoutMs?: number | undefined;
  /** Makes a workspace's chosen catalog agent (default: the ACP adapter in the task's box; tests give fakes). */
  catalogAgent?: ((entry: AgentEntry) => AgentRunner) | undefined;
  /**
   * The catalog agents a workspace may choose, by id (default: those the sandbox manager's image holds, none
   * without a driver; tests give a list).
   */
  installedAgents?: (() => readonly string[]) | undefined;
  /** The workspace trackers' port; default: the local tracker over the store's issues. */
  tracker?: Tracker | undefined;
  /** The code host's port; default: the local code host (bare git repositories, issues in the store). */
  codehost?: Codehost | undefined;
  /** Replaces the hand-over (tests reach the 503 path with one that throws). */
  handOver?: TaskContext["handOver"] | undefined;
  pullRequestSweepMs?: number | undefined;
  /** How writes commit (default: group commit, one fsync for the writes of an event-loop turn). */
  commit?: TaskContext["commit"] | undefined;
  /** Variables passed to an agent program from the service's environment. */
  agentEnv?: Readonly<Record<string, string>> | undefined;
  /**
   * With a sandbox driver (`--sandbox-driver docker|namespace`): the manager, once made; each task's turns then run
   * in a box of it instead of a working folder on the service's machine.
   */
  sandboxManager?: (() => SandboxManager | undefined) | undefined;
  /**
   * The real code host's App and web base: boxes push with the installation token's placeholder and the scripted
   * agent as the installation. Unset: the local code host.
   */
  codehostPush?: CodehostPush | undefined;
}

export interface TaskService {
  context: TaskContext;
  runtime: TaskRuntime;
  limiter: RateLimiter;
  codehost: Codehost;
  tracker: Tracker;
  /** The operator's default agent (the engine runs the workspace's chosen one in front of it). */
  agent: AgentRunner;
  /** What a workspace may choose as its coding agent now, and the default's name. */
  agentChoices(): AgentChoices;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createTaskService(options: TaskServiceOptions): TaskService {
  const { db, now, logger } = options;
  const codehostRoot = join(options.workRoot, "codehost");
  const codehost = options.codehost ?? createLocalCodehost({ db, root: codehostRoot, now });
  const tracker = options.tracker ?? createLocalTracker({ db, now });
  const sandboxes = options.sandboxManager
    ? createManagerSandboxes({
        db,
        manager: options.sandboxManager,
        root: join(options.workRoot, "sandboxes"),
        programs: options.agentCommand ? [options.agentCommand.argv[0]!] : [],
        readBatonrc: (task) =>
          codehost.readDefaultBranchFile({
            workspaceId: task.workspaceId,
            repo: task.repo!,
            path: BATONRC_FILE,
          }),
        pushAccess: createPushAccessLookup(db, options.codehostPush),
        logger,
      })
    : createHostSandboxes({
        db,
        root: join(options.workRoot, "sandboxes"),
        serviceUrl: options.serviceUrl,
        // The task's repository is ready to clone and push to before its first turn.
        env: async (task) => ({
          BATON_CODEHOST_GIT_BASE: pathToFileURL(codehostRoot).href,
          ...(task.repo ? { BATON_GIT_URL: await codehost.gitUrl(task.workspaceId, task.repo) } : {}),
        }),
      });
  const agents = createTurnAgents(options, codehost);
  // Requests arriving together share one synchronous=FULL commit (store/group-commit.ts).
  const commit: TaskContext["commit"] = options.commit ?? ((work) => db.transaction(work));
  const runtime = new TaskRuntime({
    db,
    commit,
    now,
    logger,
    agent: agents.routed,
    sandboxes,
    codehost,
    pullRequestSweepMs: options.pullRequestSweepMs ?? 15_000,
    owner: options.owner,
    lease: options.lease,
  });
  const context: TaskContext = {
    db,
    commit,
    now,
    dashboardBase: options.dashboardBase,
    handOver: options.handOver ?? handOverTask,
    accepting: () => runtime.isAccepting(),
    runTurns: (ids) => runtime.runTurns(ids),
    abortTurn: (id) => runtime.abortTurn(id),
    taskStopped: (id) => runtime.taskStopped(id),
  };
  return {
    context,
    runtime,
    limiter: createRateLimiter(db),
    codehost,
    tracker,
    agent: agents.fallback,
    agentChoices: agents.choices,
    start: () => runtime.start(),
    async stop() {
      await runtime.stop();
      await agents.routed.close?.();
    },
  };
}
