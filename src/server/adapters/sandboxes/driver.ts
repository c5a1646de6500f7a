// The sandbox driver port: what the sandbox manager needs from whatever runs boxes. Drivers are thin adapters
// (Docker Engine, bubblewrap + network namespace); every decision (names, lifecycle, what to put in the box)
// is made by the manager and handed over as plain data.
import type { StreamingProcess } from "../processes/streaming-process.js";

export const DRIVER_NAMES = ["docker", "namespace"] as const;
export type DriverName = (typeof DRIVER_NAMES)[number];

/** A service on the host that boxes may reach (the egress proxy, the operations transport). */
export interface HostEndpoint {
  host: string;
  port: number;
}

/** Endpoint names the manager uses; a driver forwards each one it is given and nothing else. */
export type EndpointName = "proxy" | "ops";

export interface BoxSpec {
  /** Unique, `baton-sandbox-` prefixed (the container's or namespace's name). */
  name: string;
  /** Docker image tag (docker driver); ignored by the namespace driver, which runs its root filesystem. */
  image: string;
  /** The sandbox variables, set for every command in the box; given the addresses the box reaches. */
  env: Record<string, string> | ((reach: CreatedBox["reach"]) => Record<string, string>);
  /** Host folders copied into the box at `~/checkouts/<owner>/<name>` (copied, never mounted). */
  checkouts?: readonly { hostPath: string; repository: string }[];
  labels?: Record<string, string>;
}

/** A box made ahead of any task (the pool): no variables, no checkout, no task's labels. */
export interface PreparedBoxSpec {
  /** Unique, `baton-sandbox-` prefixed, as BoxSpec's. */
  name: string;
  image: string;
}

/**
 * What a prepared box receives when a task takes it: BoxSpec without what was fixed ahead (the image, labels).
 * `name` is the task's box name: the Docker driver renames the container to it; a namespace box keeps its folder.
 */
export type HandOutSpec = Pick<BoxSpec, "name" | "env" | "checkouts">;

export interface CreatedBox {
  /** The driver's handle: a container id or a sandbox folder. */
  ref: string;
  /** `host:port` at which the box reaches each endpoint it was given. */
  reach: Partial<Record<EndpointName, string>>;
}

export interface ExecOptions {
  timeoutMs: number;
  /** Extra variables for this command only. */
  env?: Record<string, string>;
  /** Working folder inside the box; default the agent's home. */
  cwd?: string;
  /** Written to the command's standard input, which is then closed. */
  stdin?: string;
  /** Aborting ends the command and everything it started (SIGTERM, then SIGKILL 2 s later). */
  signal?: AbortSignal;
}

/** A long-lived command in a box spoken to over its standard streams (a coding agent over ACP). */
export type BoxProcess = StreamingProcess;

export interface SpawnOptions {
  /** Extra variables for this command only. */
  env?: Record<string, string>;
  /** Working folder inside the box; default the agent's home. */
  cwd?: string;
}

export interface ExecResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The time limit ended the command (exit code 124 or 137 then). */
  timedOut: boolean;
}

export interface SandboxDriver {
  readonly name: DriverName;
  /** The agent's home inside every box. */
  readonly home: string;
  create(spec: BoxSpec): Promise<CreatedBox>;
  /**
   * The part of `create` that can be done before any task: the box created and started, its user, its network
   * and forwarders ready, and nothing of a task in it (no variables, no checkout). Until `handOut`, `reap` leaves
   * it alone (it is this driver's pooled box, not the store's), and `remove` or `close` ends it.
   */
  prepare(spec: PreparedBoxSpec): Promise<CreatedBox>;
  /** The rest of `create` for a prepared box: its checkouts copied in and its variables given. */
  handOut(ref: string, spec: HandOutSpec): Promise<CreatedBox>;
  exec(ref: string, argv: readonly string[], options: ExecOptions): Promise<ExecResult>;
  /**
   * Starts a long-lived command in the box with its standard streams open (no time limit: the caller ends it).
   * It ends with the box: a stop or removal ends it too. A command that cannot start exits at once saying why.
   */
  spawn(ref: string, argv: readonly string[], options: SpawnOptions): Promise<BoxProcess>;
  /** Copies a file or folder out of the box into `hostDir` (created when missing). */
  copyOut(ref: string, pathInBox: string, hostDir: string): Promise<void>;
  /** Stops the box's processes; its files stay until `remove`. */
  stop(ref: string): Promise<void>;
  /** Starts a stopped box again (same files, same network). */
  start(ref: string): Promise<void>;
  /** Removes the box and everything it had; a box already gone is not an error. */
  remove(ref: string): Promise<void>;
  /** Whether the box still exists (a lost box is recreated by the manager). */
  exists(ref: string): Promise<boolean>;
  /** Removes the boxes this driver holds whose ref is not in `keep` (the store no longer lists them as live). */
  reap(keep: ReadonlySet<string>): Promise<string[]>;
  /**
   * A graceful stop of the service: closes this process's forwarders and leaves the boxes, their network and
   * firewall rules, so the next start on the same state folder adopts them (a deploy keeps the boxes).
   */
  detach(): Promise<void>;
  /** Removes every box of this driver and releases its resources (network, forwarders, firewall rules). */
  close(): Promise<void>;
}

/** Options both drivers take for boxes that outlive the service process. */
export interface PersistentDriverOptions {
  /**
   * The service's state folder. With it, the network (Docker) or box folders (namespace) are named after this
   * folder, not the process, and a driver starting on the same folder adopts what the previous run left, reopening
   * the forwarders on the ports the boxes know. Without it (tests, `baton env test`) boxes end with the process.
   */
  serviceDir?: string | undefined;
}

export const AGENT_HOME = "/home/agent";
export const AGENT_UID = 1000;
export const AGENT_GID = 1000;

/** `~/checkouts/<owner>/<name>` inside the box: where `baton env activate` looks by default. */
export function checkoutPathInBox(repository: string): string {
  return `${AGENT_HOME}/checkouts/${repository}`;
}

export function resolveBoxEnv(
  spec: Pick<BoxSpec, "env">,
  reach: CreatedBox["reach"],
): Record<string, string> {
  return typeof spec.env === "function" ? spec.env(reach) : spec.env;
}
