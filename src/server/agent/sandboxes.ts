// Where a turn runs. The port is what the task runtime needs from the sandbox manager (built on its own branch):
// a sandbox per task with the transport variables of a fresh turn. `createHostSandboxes` is the implementation
// for a service without a sandbox driver: a working folder per task on the host, reused by follow-ups.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { issueSandbox, issueTurn } from "../store/credentials.js";
import type { Database } from "../store/sqlite.js";
import type { AgentTask, TurnSandbox } from "./port.js";

export interface TurnSandboxProvider {
  readonly kind: string;
  /** The task's sandbox for one turn (created on the first, revived after a restart). */
  sandboxFor(task: AgentTask): Promise<TurnSandbox>;
}

export interface HostSandboxOptions {
  db: Database;
  now: () => Date;
  /** Folder holding one working folder per task. */
  root: string;
  /** The service's own address (BATON_OPS_URL), known once it listens. */
  serviceUrl: () => string;
  /** Extra variables for the task's sandbox (e.g. where to push to the code host). */
  env?: (task: AgentTask) => Promise<Record<string, string>>;
}

export function createHostSandboxes(options: HostSandboxOptions): TurnSandboxProvider {
  const leases = new Map<string, { sandboxId: string; lease: string }>();
  return {
    kind: "host",
    async sandboxFor(task) {
      const workdir = join(options.root, task.id);
      const home = join(workdir, "home");
      await mkdir(home, { recursive: true, mode: 0o700 });
      let held = leases.get(task.id);
      let turnToken: string;
      if (!held) {
        const issued = issueSandbox(
          options.db,
          { workspaceId: task.workspaceId, engagementId: task.id },
          options.now(),
        );
        if (typeof issued === "string") throw new Error(`cannot make a sandbox for ${task.id}: ${issued}`);
        held = { sandboxId: issued.sandboxId, lease: issued.lease };
        leases.set(task.id, held);
        turnToken = issued.turnToken;
      } else {
        const turn = issueTurn(options.db, { engagementId: task.id }, options.now());
        if (typeof turn === "string") throw new Error(`cannot issue a turn for ${task.id}: ${turn}`);
        turnToken = turn.turnToken;
      }
      return {
        id: held.sandboxId,
        workdir,
        env: {
          ...(await options.env?.(task)),
          HOME: home,
          BATON_CHECKOUT_ROOT: join(home, "checkouts"),
          BATON_TASK_ID: task.id,
          BATON_WORKSPACE_ID: task.workspaceId,
          BATON_OPS_URL: options.serviceUrl(),
          BATON_TURN_TOKEN: turnToken,
          BATON_SANDBOX_LEASE: held.lease,
        },
        secrets: [
          { name: "BATON_TURN_TOKEN", value: turnToken },
          { name: "BATON_SANDBOX_LEASE", value: held.lease },
        ],
      };
    },
  };
}
