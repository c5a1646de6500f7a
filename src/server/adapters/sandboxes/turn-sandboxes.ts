// Task turns in boxes of the sandbox manager (`baton serve --sandbox-driver docker|namespace`, issue 13 point 5):
// one box per task (its engagement), made on the first turn, reused by follow-ups, recreated with the pinned image
// when lost; the `command` agent's program is installed in each new box and runs there with the turn's variables.
// A turn's commands are activity (the idle stop's clock); when the task stops working its box stops, and a
// member's stop archives it at once (DESIGN "Sandbox activity"). The box reaches the service, so the agent clones
// and pushes through the local code host's smart HTTP route (surfaces/git/git-http.ts); a repository an App
// installation gives is cloned from the real code host through the proxy, with the token's placeholder.
import { mkdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { Logger } from "pino";
import type { Store } from "../../store/store.js";
import type { AgentTask, TurnSandbox } from "../agents/port.js";
import { boxGitEnvironment, boxGitUrl } from "../codehost/box-git.js";
import type { PushAccessLookup } from "../codehost/push-access.js";
import { codehostPushEnvironment, codehostRepoUrl } from "../codehost/push-credentials.js";
import {
  extendLeaseWithin,
  type IssuedSandbox,
  issueSandboxWithin,
  issueTurnWithin,
  renewSandboxWithin,
} from "./credentials.js";
import { AGENT_HOME, checkoutPathInBox } from "./driver.js";
import type { TurnSandboxProvider } from "./host-sandboxes.js";
import { isReusable } from "./lifecycle.js";
import type { SandboxManager } from "./manager.js";
import { latestBoxOf } from "./store.js";

/** Where an installed program lives in a box. */
export const BOX_PROGRAM_DIR = `${AGENT_HOME}/.baton/agent`;
const INSTALL_TIMEOUT_MS = 60_000;

export interface ManagerSandboxesOptions {
  db: Store;
  /** The sandbox manager, once `baton serve` has made it (it listens first: boxes reach its address). */
  manager: () => SandboxManager | undefined;
  /** Folder holding a working folder per task on the service's machine (for adapters that work there). */
  root: string;
  /** Programs of the service's machine to install in every new box (the `command` agent's program). */
  programs?: readonly string[];
  /** Reads a known repository's `.batonrc.json` (the code host's default branch) for a new box. */
  readBatonrc?: (task: AgentTask) => Promise<string | null>;
  /** The installation giving a task's repository at the real code host (unset or none: the local code host). */
  pushAccess?: PushAccessLookup | undefined;
  logger: Logger;
}

/** The in-box path for an installed program: its file name, made safe. */
export function boxProgramPath(hostPath: string): string {
  const name =
    basename(hostPath)
      .replace(/[^A-Za-z0-9._-]/g, "_")
      .replace(/^\.+/, "") || "agent-program";
  return `${BOX_PROGRAM_DIR}/${name}`;
}

export function createManagerSandboxes(options: ManagerSandboxesOptions): TurnSandboxProvider {
  const { db } = options;
  // The lease is kept only as a hash by the store: held here for each box's lifetime, so a follow-up reuses the
  // lease the box's environment.sh and proxy settings already carry (its expiry is extended, never its value).
  const leases = new Map<string, string>();
  const managerOf = () => {
    const manager = options.manager();
    if (!manager) throw new Error("the sandbox manager is not running yet");
    return manager;
  };

  return {
    kind: "manager",
    async credentialsFor(task, now): Promise<IssuedSandbox> {
      const row = await latestBoxOf(db, task.id);
      const held = row && leases.get(row.sandboxId);
      if (row && held && row.workspaceId === task.workspaceId && isReusable(row.state)) {
        const leaseExpiresAt = await extendLeaseWithin(
          db,
          { sandboxId: row.sandboxId, engagementId: task.id },
          now,
        );
        const turn = await issueTurnWithin(db, { engagementId: task.id }, now);
        if (typeof turn === "string") throw new Error(`cannot issue a turn for ${task.id}: ${turn}`);
        return {
          sandboxId: row.sandboxId,
          engagementId: task.id,
          lease: held,
          leaseExpiresAt,
          ...turn,
        };
      }
      // A box of the previous run (the service restarted, its leases held only in that run's memory): the same
      // box with a fresh lease, so a resumed turn finds the files it left.
      if (row && row.workspaceId === task.workspaceId && isReusable(row.state) && row.boxRef)
        return renewSandboxWithin(db, { sandboxId: row.sandboxId, engagementId: task.id }, now);
      const issued = await issueSandboxWithin(
        db,
        { workspaceId: task.workspaceId, engagementId: task.id },
        now,
      );
      if (typeof issued === "string") throw new Error(`cannot make a sandbox for ${task.id}: ${issued}`);
      return issued;
    },

    async sandboxFor(task, credentials): Promise<TurnSandbox> {
      const manager = managerOf();
      const owner = { workspaceId: task.workspaceId, engagementId: task.id };
      // `.batonrc.json` applies when the box is created and the repository is known (reference section 2).
      const batonrcText = task.repo ? ((await options.readBatonrc?.(task)) ?? undefined) : undefined;
      const made = await manager.provision({
        ...owner,
        repository: task.repo ?? undefined,
        batonrcText,
        issued: credentials as IssuedSandbox,
      });
      const { sandboxId, lease, turnToken } = made.issued;
      leases.set(sandboxId, lease);
      if (!made.reused)
        for (const program of options.programs ?? []) await install(manager, sandboxId, owner, program);
      const workdir = join(options.root, task.id);
      await mkdir(workdir, { recursive: true, mode: 0o700 });
      const local = made.reach.ops ? boxGitEnvironment(made.reach.ops, lease) : {};
      const access = task.repo ? await options.pushAccess?.(task.workspaceId, task.repo) : undefined;
      // The turn's git settings replace the box's: the installation's header goes after the local one again.
      const git = access ? codehostPushEnvironment(access, local) : local;
      const gitUrl =
        task.repo && access
          ? codehostRepoUrl(access.webUrl, task.repo)
          : task.repo && made.reach.ops
            ? boxGitUrl(made.reach.ops, task.repo)
            : undefined;
      return {
        id: sandboxId,
        workdir,
        env: {
          BATON_TASK_ID: task.id,
          BATON_WORKSPACE_ID: task.workspaceId,
          ...(gitUrl ? { BATON_GIT_URL: gitUrl } : {}),
          ...git,
        },
        secrets: [
          { name: "BATON_TURN_TOKEN", value: turnToken },
          { name: "BATON_SANDBOX_LEASE", value: lease },
          ...(git.GIT_CONFIG_VALUE_0 ? [{ name: "GIT_CONFIG_VALUE_0", value: git.GIT_CONFIG_VALUE_0 }] : []),
        ],
        box: {
          exec: (argv, execOptions) => manager.exec(sandboxId, owner, argv, execOptions),
          programPath: (hostPath) =>
            options.programs?.includes(hostPath) ? boxProgramPath(hostPath) : undefined,
          spawn: (argv, spawnOptions) => manager.spawn(sandboxId, owner, argv, spawnOptions),
          home: AGENT_HOME,
          ...(task.repo ? { checkout: checkoutPathInBox(task.repo) } : {}),
        },
      };
    },

    async settle(task, how, stillIdle) {
      const manager = options.manager();
      const row = await latestBoxOf(db, task.id);
      if (!manager || !row || row.workspaceId !== task.workspaceId) return;
      const owner = { workspaceId: task.workspaceId, engagementId: task.id };
      await manager.settle(
        row.sandboxId,
        owner,
        how === "cancelled" ? "cancelled" : "work_finished",
        stillIdle,
      );
    },
  };
}

/** Copies a program of the service's machine into the box (base64 over stdin: any bytes, no second channel). */
async function install(
  manager: SandboxManager,
  sandboxId: string,
  owner: { workspaceId: string; engagementId: string },
  hostPath: string,
): Promise<void> {
  const target = boxProgramPath(hostPath);
  const content = await readFile(hostPath);
  const result = await manager.exec(
    sandboxId,
    owner,
    ["sh", "-c", 'mkdir -p "$1" && base64 -d > "$2" && chmod 0755 "$2"', "install", BOX_PROGRAM_DIR, target],
    { stdin: content.toString("base64"), timeoutMs: INSTALL_TIMEOUT_MS },
  );
  if (result.exitCode !== 0)
    throw new Error(`cannot install ${basename(hostPath)} in the box: ${result.stderr.trim().slice(-300)}`);
}
