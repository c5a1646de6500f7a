// Where a turn runs. The port is what the task runtime needs from a sandbox: one per task with the transport
// variables of a fresh turn. The credentials are issued inside the transaction that begins the turn (one commit,
// and a turn that never began has none); the sandbox itself is made ready after it. `createHostSandboxes` is the
// implementation for a service without a sandbox driver: a working folder per task on the host, reused by
// follow-ups; with a driver, src/server/adapters/sandboxes/turn-sandboxes.ts gives each task a box of the sandbox manager.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Store } from "../../store/store.js";
import type { AgentTask, TurnSandbox } from "../agents/port.js";
import { issueSandboxWithin, issueTurnWithin } from "./credentials.js";

export interface TurnCredentials {
  sandboxId: string;
  lease: string;
  turnToken: string;
}

export interface TurnSandboxProvider {
  readonly kind: string;
  /** Runs inside the transaction that begins the turn: a lease for the task's sandbox and a turn token. */
  credentialsFor(task: AgentTask, now: Date): Promise<TurnCredentials>;
  /** After that commit: the sandbox for the turn (created on the first turn, reused by follow-ups). */
  sandboxFor(task: AgentTask, credentials: TurnCredentials): Promise<TurnSandbox>;
  /**
   * The task stopped working (no turn open): `finished` after a turn ended, `cancelled` when a member stopped it.
   * DESIGN "Sandbox activity": work finishing stops the sandbox; a terminal cancellation archives it at once.
   * `stillIdle` says, when the change is about to apply, whether the task still has no turn (a follow-up may have
   * begun meanwhile: then nothing changes).
   */
  settle?(task: AgentTask, how: "finished" | "cancelled", stillIdle: () => Promise<boolean>): Promise<void>;
}

export interface HostSandboxOptions {
  db: Store;
  /** Folder holding one working folder per task. */
  root: string;
  /** The service's own address (BATON_OPS_URL), known once it listens. */
  serviceUrl: () => string;
  /** Extra variables for the task's sandbox (e.g. where to push to the code host). */
  env?: (task: AgentTask) => Promise<Record<string, string>>;
}

export function createHostSandboxes(options: HostSandboxOptions): TurnSandboxProvider {
  // The lease is a credential the store keeps only as a hash: held here for the service's lifetime; after a
  // restart the task's engagement gets a new sandbox lease (a revival).
  const leases = new Map<string, { sandboxId: string; lease: string }>();
  return {
    kind: "host",
    async credentialsFor(task, now) {
      const held = leases.get(task.id);
      if (held) {
        const turn = await issueTurnWithin(options.db, { engagementId: task.id }, now);
        if (typeof turn === "string") throw new Error(`cannot issue a turn for ${task.id}: ${turn}`);
        return { ...held, turnToken: turn.turnToken };
      }
      const issued = await issueSandboxWithin(
        options.db,
        { workspaceId: task.workspaceId, engagementId: task.id },
        now,
      );
      if (typeof issued === "string") throw new Error(`cannot make a sandbox for ${task.id}: ${issued}`);
      return { sandboxId: issued.sandboxId, lease: issued.lease, turnToken: issued.turnToken };
    },
    async sandboxFor(task, credentials) {
      leases.set(task.id, { sandboxId: credentials.sandboxId, lease: credentials.lease });
      const workdir = join(options.root, task.id);
      const home = join(workdir, "home");
      await mkdir(home, { recursive: true, mode: 0o700 });
      return {
        id: credentials.sandboxId,
        workdir,
        env: {
          ...(await options.env?.(task)),
          HOME: home,
          BATON_CHECKOUT_ROOT: join(home, "checkouts"),
          BATON_TASK_ID: task.id,
          BATON_WORKSPACE_ID: task.workspaceId,
          BATON_OPS_URL: options.serviceUrl(),
          BATON_TURN_TOKEN: credentials.turnToken,
          BATON_SANDBOX_LEASE: credentials.lease,
        },
        secrets: [
          { name: "BATON_TURN_TOKEN", value: credentials.turnToken },
          { name: "BATON_SANDBOX_LEASE", value: credentials.lease },
        ],
      };
    },
  };
}
