// The namespace driver, for machines without Docker: each box is a folder (its home and /tmp) and a network
// namespace; each command runs in bubblewrap on the sandbox image's own root filesystem (read-only) as an
// unprivileged host user of its own (a uid of `--sandbox-uids` no account uses, one per box) mapped to the agent
// (uid 1000) in a new user, PID, IPC and UTS namespace. Boxes reach
// the proxy and the operations transport only through forwarders on their veth's host side.
// Unlike a container, a box keeps no process between commands: each command ends with everything it started.
import { existsSync } from "node:fs";
import { chmod, chown, cp, mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, posix, relative } from "node:path";
import { execa } from "execa";
import { ConfigError } from "../../../../errors.js";
import { spawnStreaming } from "../../processes/streaming-process.js";
import {
  AGENT_GID,
  AGENT_HOME,
  AGENT_UID,
  type BoxProcess,
  type BoxSpec,
  type CreatedBox,
  checkoutPathInBox,
  type EndpointName,
  type ExecOptions,
  type ExecResult,
  type HandOutSpec,
  type HostEndpoint,
  type PersistentDriverOptions,
  type PreparedBoxSpec,
  resolveBoxEnv,
  type SandboxDriver,
  type SpawnOptions,
} from "../driver.js";
import { allow, revoke } from "../egress/firewall.js";
import { type Forwarder, startForwarder } from "../egress/forwarder.js";
import { withoutBoxCredentials } from "../environment.js";
import { readAccountFiles } from "./account-files.js";
import { MAX_EXEC_OUTPUT_BYTES } from "./bounded-output.js";
import {
  checkUidRange,
  createUidAllocator,
  DEFAULT_SANDBOX_UIDS,
  parseUidRange,
  type UidRange,
} from "./box-uids.js";
import {
  type BoxNetwork,
  boxNetworkExists,
  createBoxNetwork,
  removeBoxNetwork,
} from "./namespace-network.js";
import { isOrphaned, ownerStamp } from "./owner.js";
import { reachableTree } from "./reachable-tree.js";
import { findUnsearchableFolder } from "./searchable-path.js";
import { serviceKeyOf } from "./service-key.js";

export interface NamespaceDriverOptions extends PersistentDriverOptions {
  endpoints: Partial<Record<EndpointName, HostEndpoint>>;
  /** The sandbox image's root filesystem (scripts/build-sandbox-image.mjs: `rootfs`). */
  rootfs: string;
  /** The folder holding `opt/baton` (the image's baton layer: `batonDir`). */
  batonDir: string;
  /** The folder holding `opt/baton-agents` (the image's agents layer: `agentsDir`), when agents were built. */
  agentsDir?: string | null | undefined;
  /** Where box folders live; default a `baton-sandbox-ns` folder in the temporary folder. */
  stateDir?: string;
  /** Host uids, one per box, that no account uses (`--sandbox-uids`; default DEFAULT_SANDBOX_UIDS). */
  uids?: UidRange;
  /** The account files checked against `uids` (default the machine's /etc/passwd and /etc/group). */
  accountFiles?: { passwd: string; group: string };
}

/**
 * What a box's folder records for the next driver (orphan removal, adoption). Never the turn token or the lease:
 * `env` is the box's variables without them, which each command gets from the sandbox manager instead.
 */
interface BoxState {
  network: BoxNetwork;
  env: Record<string, string>;
  forwarders: number[];
  /** Which forwarder port serves which endpoint: a restarted service reopens each on its port. */
  ports?: Partial<Record<EndpointName, number>>;
  owner: string;
  /** The box's own host uid (older boxes have none: they ran as AGENT_UID). */
  uid?: number;
}

const BOX_FILE = "box.json";
/** A service's boxes live in `service-<key of its state folder>/`, owned by `service:<its state folder>`. */
const SERVICE_FOLDER_PREFIX = "service-";
const SERVICE_OWNER = "service:";

export async function createNamespaceDriver(options: NamespaceDriverOptions): Promise<SandboxDriver> {
  const stateDir = options.stateDir ?? join(tmpdir(), "baton-sandbox-ns");
  const uids = options.uids ?? parseUidRange(DEFAULT_SANDBOX_UIDS);
  checkUidRange(uids, options.accountFiles ?? (await readAccountFiles()));
  // Any uid of the range reaches what any other does: none owns a file or has a group.
  const hostUid = uids.first;
  const closed = await findUnsearchableFolder(dirname(stateDir));
  if (closed)
    throw new ConfigError(
      `namespace boxes run as host users of their own and cannot pass through ${closed} (no search permission for other users) to reach ${stateDir}; set TMPDIR to a folder every user may pass through, such as /tmp, or run chmod o+x ${closed}`,
    );
  // Searchable but not listable: the unprivileged box user must pass through to its own folder only.
  await mkdir(stateDir, { recursive: true, mode: 0o711 });
  await chmod(stateDir, 0o711);
  const imagesDir = join(stateDir, "images");
  const rootfs = await reachableTree(options.rootfs, hostUid, imagesDir, "rootfs");
  const batonDir = await reachableTree(options.batonDir, hostUid, imagesDir, "baton");
  const agentsDir = options.agentsDir
    ? await reachableTree(options.agentsDir, hostUid, imagesDir, "agents")
    : undefined;
  const live = new Map<
    string,
    {
      forwarders: Forwarder[];
      running: Set<{ kill(signal?: "SIGKILL"): unknown }>;
      env: Record<string, string>;
    }
  >();
  const inUse: number[] = [];
  /** Prepared boxes not yet handed out (their refs): no task's, so `reap` leaves them to the pool. */
  const pooled = new Set<string>();
  // A service's boxes live in a folder named after its state folder, out of reach of the orphan reaping below
  // (which knows only process stamps): the next start on that state folder adopts them.
  const boxesDir = options.serviceDir
    ? join(stateDir, `${SERVICE_FOLDER_PREFIX}${serviceKeyOf(options.serviceDir)}`)
    : stateDir;
  if (boxesDir !== stateDir) {
    // The state folder names the service: boxes whose folder is gone are reaped by the next driver to start.
    if (options.serviceDir) await mkdir(options.serviceDir, { recursive: true });
    await mkdir(boxesDir, { recursive: true, mode: 0o711 });
    await chmod(boxesDir, 0o711);
  }
  const readBoxState = (ref: string): Promise<BoxState | undefined> =>
    readFile(join(ref, BOX_FILE), "utf8")
      .then((text) => JSON.parse(text) as BoxState)
      .catch(() => undefined);
  const removeLeftBox = async (ref: string, state: BoxState): Promise<void> => {
    for (const port of state.forwarders)
      await revoke(state.network.hostInterface, state.network.hostAddress, port);
    await removeBoxNetwork(state.network);
    await rm(ref, { recursive: true, force: true });
  };
  for (const name of await readdir(stateDir).catch(() => [] as string[])) {
    if (name.startsWith(SERVICE_FOLDER_PREFIX)) {
      // Every service's boxes keep their uids (this service's, which it adopts, and other services' on this
      // machine); a service whose state folder is gone can never adopt its boxes: they are removed.
      const folder = join(stateDir, name);
      let gone = false;
      for (const box of await readdir(folder).catch(() => [] as string[])) {
        if (!box.startsWith("baton-sandbox-")) continue;
        const state = await readBoxState(join(folder, box));
        if (!state) continue;
        const service = state.owner.startsWith(SERVICE_OWNER)
          ? state.owner.slice(SERVICE_OWNER.length)
          : undefined;
        if (service !== undefined && !existsSync(service)) {
          gone = true;
          await removeLeftBox(join(folder, box), state);
        } else if (state.uid !== undefined) inUse.push(state.uid);
      }
      if (gone && folder !== boxesDir) await rm(folder, { recursive: true, force: true });
      continue;
    }
    if (!name.startsWith("baton-sandbox-")) continue;
    // Boxes of a process-bound driver that died (kill -9, crash) cannot work without its forwarders: remove them.
    const ref = join(stateDir, name);
    const state = await readBoxState(ref);
    if (state && !isOrphaned(state.owner)) {
      if (state.uid !== undefined) inUse.push(state.uid);
      continue;
    }
    if (state) await removeLeftBox(ref, state);
  }

  const boxUids = createUidAllocator(uids, inUse);
  const readState = async (ref: string): Promise<BoxState> =>
    JSON.parse(await readFile(join(ref, BOX_FILE), "utf8")) as BoxState;

  /** Maps a path inside the box to the host: only the home and /tmp are the box's own. */
  function hostPathOf(ref: string, pathInBox: string): string {
    const normal = posix.normalize(pathInBox);
    for (const [inside, outside] of [
      [AGENT_HOME, join(ref, "home")],
      ["/tmp", join(ref, "tmp")],
    ] as const) {
      if (normal === inside || normal.startsWith(`${inside}/`))
        return join(outside, relative(inside, normal));
    }
    throw new Error(`${pathInBox} is not in the box's home or /tmp; only those can be copied out`);
  }

  function bwrapArgs(ref: string, cwd: string): string[] {
    return [
      "--unshare-user",
      "--uid",
      String(AGENT_UID),
      "--gid",
      String(AGENT_GID),
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-cgroup-try",
      "--hostname",
      "baton-sandbox",
      "--die-with-parent",
      "--new-session",
      "--ro-bind",
      rootfs,
      "/",
      "--ro-bind",
      join(batonDir, "opt", "baton"),
      "/opt/baton",
      // The coding agents, read-only like the rest of the image.
      ...(agentsDir ? ["--ro-bind", join(agentsDir, "opt", "baton-agents"), "/opt/baton-agents"] : []),
      "--bind",
      join(ref, "home"),
      AGENT_HOME,
      "--bind",
      join(ref, "tmp"),
      "/tmp",
      "--proc",
      "/proc",
      "--dev",
      "/dev",
      "--chdir",
      cwd,
    ];
  }

  /** The host command that runs `argv` in the box as its user, and the variables it gets. */
  async function boxCommand(ref: string, argv: readonly string[], options: SpawnOptions) {
    const state = await readState(ref);
    const box = live.get(ref);
    if (!box) throw new Error(`box ${basename(ref)} is stopped or belongs to another service process`);
    const command = Object.assign(
      [
        "ip",
        "netns",
        "exec",
        state.network.netns,
        "setpriv",
        `--reuid=${state.uid ?? AGENT_UID}`,
        `--regid=${state.uid ?? AGENT_UID}`,
        "--clear-groups",
        "--inh-caps=-all",
        "bwrap",
        ...bwrapArgs(ref, options.cwd ?? AGENT_HOME),
        "--",
        ...argv,
      ],
      {
        // The box's variables travel in the environment, never in an argument list others could read.
        env: {
          PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
          HOME: AGENT_HOME,
          USER: "agent",
          LANG: "C.UTF-8",
          BASH_ENV: "/etc/baton/shell-environment.sh",
          ENV: "/etc/baton/shell-environment.sh",
          ...box.env,
          ...options.env,
        },
      },
    );
    return { box, command };
  }

  /** A box's folder, user, network and forwarders, with `checkouts` copied in and `envOf`'s variables. */
  async function makeBox(
    name: string,
    checkouts: NonNullable<BoxSpec["checkouts"]>,
    envOf: (reach: CreatedBox["reach"]) => Record<string, string>,
  ): Promise<CreatedBox> {
    const ref = join(boxesDir, name);
    const uid = boxUids.allocate();
    await mkdir(join(ref, "home", "checkouts"), { recursive: true });
    await mkdir(join(ref, "tmp"), { recursive: true });
    let network: BoxNetwork | undefined;
    const forwarders: Forwarder[] = [];
    try {
      for (const checkout of checkouts) {
        const target = hostPathOf(ref, checkoutPathInBox(checkout.repository));
        await cp(checkout.hostPath, target, { recursive: true, verbatimSymlinks: true });
      }
      await execa("chown", ["-R", `${uid}:${uid}`, join(ref, "home"), join(ref, "tmp")]);
      // The box's own: no other box's uid may enter them on the host.
      await chmod(join(ref, "home"), 0o700);
      await chmod(join(ref, "tmp"), 0o700);
      await chown(ref, 0, 0);
      await chmod(ref, 0o711);
      network = await createBoxNetwork(name);
      const reach: CreatedBox["reach"] = {};
      const ports: BoxState["ports"] = {};
      for (const [name, endpoint] of Object.entries(options.endpoints) as [EndpointName, HostEndpoint][]) {
        const forwarder = await startForwarder(network.hostAddress, endpoint);
        forwarders.push(forwarder);
        await allow(network.hostInterface, network.hostAddress, forwarder.port);
        reach[name] = forwarder.address;
        ports[name] = forwarder.port;
      }
      const env = envOf(reach);
      const state: BoxState = {
        network,
        env: withoutBoxCredentials(env),
        forwarders: forwarders.map((f) => f.port),
        ports,
        owner: options.serviceDir ? `${SERVICE_OWNER}${options.serviceDir}` : ownerStamp(),
        uid,
      };
      await writeFile(join(ref, BOX_FILE), JSON.stringify(state), { mode: 0o600 });
      live.set(ref, { forwarders, running: new Set(), env });
      return { ref, reach };
    } catch (error) {
      for (const forwarder of forwarders) await forwarder.close();
      if (network) {
        for (const forwarder of forwarders)
          await revoke(network.hostInterface, network.hostAddress, forwarder.port);
        await removeBoxNetwork(network);
      }
      await rm(ref, { recursive: true, force: true });
      boxUids.release(uid);
      throw error;
    }
  }

  const driver: SandboxDriver = {
    name: "namespace",
    home: AGENT_HOME,

    async spawn(ref, argv, options): Promise<BoxProcess> {
      const { box, command } = await boxCommand(ref, argv, options);
      // bubblewrap dies with its parent and takes the box's pid namespace with it: ending it ends the command's.
      const started = await spawnStreaming(command, { cwd: "/", env: command.env });
      const handle = { kill: () => void started.kill() };
      box.running.add(handle);
      void started.exited.then(() => box.running.delete(handle));
      return started;
    },

    create(spec: BoxSpec): Promise<CreatedBox> {
      return makeBox(spec.name, spec.checkouts ?? [], (reach) => resolveBoxEnv(spec, reach));
    },

    async prepare(spec: PreparedBoxSpec): Promise<CreatedBox> {
      const ref = join(boxesDir, spec.name);
      // Known as pooled before its folder exists, so a `reap` running meanwhile leaves it alone.
      pooled.add(ref);
      try {
        return await makeBox(spec.name, [], () => ({}));
      } catch (error) {
        pooled.delete(ref);
        throw error;
      }
    },

    async handOut(ref: string, spec: HandOutSpec): Promise<CreatedBox> {
      const box = live.get(ref);
      if (!pooled.has(ref) || !box)
        throw new Error(`box ${basename(ref)} is not a prepared box of this driver`);
      // Out of the pool first: whatever happens next, this box is never prepared for anyone else.
      pooled.delete(ref);
      const state = await readState(ref);
      for (const checkout of spec.checkouts ?? [])
        await cp(checkout.hostPath, hostPathOf(ref, checkoutPathInBox(checkout.repository)), {
          recursive: true,
          verbatimSymlinks: true,
        });
      if (spec.checkouts?.length)
        await execa("chown", ["-R", `${state.uid}:${state.uid}`, join(ref, "home", "checkouts")]);
      const reach = Object.fromEntries(
        Object.entries(state.ports ?? {}).map(([name, port]) => [
          name,
          `${state.network.hostAddress}:${port}`,
        ]),
      ) as CreatedBox["reach"];
      const env = resolveBoxEnv(spec, reach);
      await writeFile(join(ref, BOX_FILE), JSON.stringify({ ...state, env: withoutBoxCredentials(env) }), {
        mode: 0o600,
      });
      box.env = env;
      return { ref, reach };
    },

    async exec(ref, argv, execOptions: ExecOptions): Promise<ExecResult> {
      const { box, command } = await boxCommand(ref, argv, execOptions);
      const child = execa(command[0]!, command.slice(1), {
        env: command.env,
        extendEnv: false,
        reject: false,
        timeout: execOptions.timeoutMs,
        ...(execOptions.signal ? { cancelSignal: execOptions.signal } : {}),
        forceKillAfterDelay: 2000,
        maxBuffer: MAX_EXEC_OUTPUT_BYTES,
        stripFinalNewline: false,
        ...(execOptions.stdin !== undefined ? { input: execOptions.stdin } : { stdin: "ignore" as const }),
      });
      box.running.add(child);
      try {
        const result = await child;
        return {
          exitCode: result.timedOut ? 124 : (result.exitCode ?? 137),
          stdout: String(result.stdout ?? ""),
          stderr: String(result.stderr ?? ""),
          timedOut: result.timedOut === true,
        };
      } finally {
        box.running.delete(child);
      }
    },

    async copyOut(ref, pathInBox, hostDir) {
      const source = hostPathOf(ref, pathInBox);
      await stat(source);
      await mkdir(hostDir, { recursive: true });
      // tar copies symbolic links as links, so a link in the box cannot pull host files out.
      await execa("bash", [
        "-o",
        "pipefail",
        "-c",
        'tar -C "$1" -c -- "$2" | tar -x --no-same-owner -C "$3"',
        "copy-out",
        dirname(source),
        basename(source),
        hostDir,
      ]);
    },

    async stop(ref) {
      const box = live.get(ref);
      if (!box) return;
      for (const child of box.running) child.kill("SIGKILL");
    },

    async start(ref) {
      if (!live.has(ref)) throw new Error(`box ${basename(ref)} belongs to another service process`);
    },

    async remove(ref) {
      const box = live.get(ref);
      let state: BoxState | undefined;
      try {
        state = await readState(ref);
      } catch {
        state = undefined;
      }
      if (box) {
        for (const child of box.running) child.kill("SIGKILL");
        for (const forwarder of box.forwarders) await forwarder.close();
      }
      if (state) {
        for (const port of state.forwarders)
          await revoke(state.network.hostInterface, state.network.hostAddress, port);
        await removeBoxNetwork(state.network);
      }
      live.delete(ref);
      pooled.delete(ref);
      await rm(ref, { recursive: true, force: true });
      if (state?.uid !== undefined) boxUids.release(state.uid);
    },

    async exists(ref) {
      try {
        const state = await readState(ref);
        return live.has(ref) && (await boxNetworkExists(state.network.netns));
      } catch {
        return false;
      }
    },

    async reap(keep) {
      // A process-bound driver shares its folder with every other one on the machine: it reaps only its own.
      const names = options.serviceDir
        ? await readdir(boxesDir).catch(() => [] as string[])
        : [...live.keys()].map((ref) => basename(ref));
      const gone: string[] = [];
      for (const name of names) {
        const ref = join(boxesDir, name);
        if (!name.startsWith("baton-sandbox-") || keep.has(ref) || pooled.has(ref)) continue;
        await driver.remove(ref);
        gone.push(ref);
      }
      return gone;
    },

    async detach() {
      for (const box of live.values()) {
        for (const child of box.running) child.kill("SIGKILL");
        for (const forwarder of box.forwarders) await forwarder.close();
      }
      live.clear();
    },

    async close() {
      for (const ref of [...live.keys()]) await driver.remove(ref);
    },
  };
  if (options.serviceDir) await adoptBoxes();
  return driver;

  /** The previous run's boxes whose network namespace still exists: their forwarders reopen on their ports. */
  async function adoptBoxes(): Promise<void> {
    for (const name of await readdir(boxesDir)) {
      if (!name.startsWith("baton-sandbox-")) continue;
      const ref = join(boxesDir, name);
      const state = await readState(ref).catch(() => undefined);
      if (!state?.ports || !(await boxNetworkExists(state.network.netns))) continue;
      const forwarders: Forwarder[] = [];
      try {
        for (const [endpoint, port] of Object.entries(state.ports) as [EndpointName, number][]) {
          const target = options.endpoints[endpoint];
          if (!target) continue;
          forwarders.push(await startForwarder(state.network.hostAddress, target, port));
          await allow(state.network.hostInterface, state.network.hostAddress, port);
        }
      } catch (error) {
        for (const forwarder of forwarders) await forwarder.close();
        await driver.detach();
        throw error;
      }
      // The box's variables without credentials (box.json never holds them); a turn passes its own.
      live.set(ref, { forwarders, running: new Set(), env: state.env });
    }
  }
}
