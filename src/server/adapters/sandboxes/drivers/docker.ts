// The Docker driver: one container per box on a network of our own that is `internal` (no route out) with
// inter-container traffic off; boxes reach the proxy and the operations transport only through forwarders on
// the network's gateway, and the host firewall rejects everything else. Docker Engine API through dockerode.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { type Duplex, PassThrough, Readable, Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { StringDecoder } from "node:string_decoder";
import { setTimeout as delay } from "node:timers/promises";
import Docker from "dockerode";
import { execa } from "execa";
import { z } from "zod";
import { createTail, type ProcessExit, STDERR_TAIL_CHARS } from "../../processes/streaming-process.js";
import {
  AGENT_HOME,
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
import {
  allow,
  ensureBaseRules,
  ensureDockerUserRule,
  revokeInterface,
  SANDBOX_INTERFACE_PREFIX,
} from "../egress/firewall.js";
import { type Forwarder, startForwarder } from "../egress/forwarder.js";
import { withoutBoxCredentials } from "../environment.js";
import { readAccountFiles } from "./account-files.js";
import { BoundedSink } from "./bounded-output.js";
import { BOX_ENV_FILE, openBoxEnvRecord } from "./box-env-record.js";
import { checkUidRange, DEFAULT_SANDBOX_UIDS, parseUidRange, type UidRange } from "./box-uids.js";
import { directoryEntries } from "./directory-tar.js";
import { createDockerUidPool, UID_LABEL } from "./docker-box-uids.js";
import { giveBoxItsUser } from "./docker-box-user.js";
import { describeEngineFailure } from "./docker-engine.js";
import { isOrphaned, OWNER_LABEL, ownerStamp } from "./owner.js";
import { serviceKeyOf } from "./service-key.js";

export const SANDBOX_LABEL = "baton.sandbox";

export interface DockerDriverOptions extends PersistentDriverOptions {
  endpoints: Partial<Record<EndpointName, HostEndpoint>>;
  docker?: Docker;
  /** Host uids, one per box, that no account uses (`--sandbox-uids`; default DEFAULT_SANDBOX_UIDS). */
  uids?: UidRange;
  /** The account files checked against `uids` (default the machine's /etc/passwd and /etc/group). */
  accountFiles?: { passwd: string; group: string };
}

/** The network's forwarder ports, kept in the service's state folder for the next run to reopen. */
const FORWARDERS_FILE = "docker-sandbox-forwarders.json";
const SERVICE_LABEL = "baton.sandbox.service";

const ForwardersRecordSchema = z.object({
  network: z.string(),
  ports: z.record(z.string(), z.number().int().min(1).max(65535)),
  detached: z.boolean(),
});
type ForwardersRecord = z.infer<typeof ForwardersRecordSchema>;

async function readForwarders(path: string, network: string): Promise<ForwardersRecord | undefined> {
  try {
    const record = ForwardersRecordSchema.parse(JSON.parse(await readFile(path, "utf8")));
    return record.network === network ? record : undefined;
  } catch {
    return undefined;
  }
}

async function writeForwarders(path: string, record: ForwardersRecord): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/** The variables of `env` that `kept` left out: those carrying the turn token or the lease. */
const withoutKept = (env: Record<string, string>, kept: Record<string, string>) =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !(name in kept)));

/** `timeout --kill-after` in the box: how long a TERM gets before its KILL. */
const KILL_AFTER_MS = 2000;

/** An exec's exit once its stream ended: the engine may take a moment to record it. */
async function exitOf(execution: Docker.Exec): Promise<ProcessExit> {
  const deadline = Date.now() + 2000;
  for (;;) {
    const inspected = await execution.inspect().catch(() => undefined);
    if (!inspected) return { code: null, signal: null, error: "the box is gone" };
    if (!inspected.Running && inspected.ExitCode !== null)
      // `timeout` answers 124 when it ended the command and 128+n when a signal n did.
      return inspected.ExitCode > 128
        ? { code: null, signal: `signal ${inspected.ExitCode - 128}` }
        : { code: inspected.ExitCode, signal: null };
    if (Date.now() > deadline) return { code: null, signal: null, error: "its exit was never recorded" };
    await delay(50, undefined);
  }
}

/** Removes the boxes and networks of drivers whose service process died (kill -9, crash). */
async function reapOrphans(docker: Docker): Promise<void> {
  const networks = await docker.listNetworks({ filters: { label: [SANDBOX_LABEL] } });
  for (const network of networks) {
    // A process-bound network whose process died, or a service's network whose state folder is gone (the service
    // that could adopt its boxes no longer exists): both are left-overs nothing will use again.
    const service = network.Labels?.[SERVICE_LABEL];
    const orphaned = service !== undefined ? !existsSync(service) : isOrphaned(network.Labels?.[OWNER_LABEL]);
    if (!orphaned) continue;
    const boxes = await docker.listContainers({
      all: true,
      filters: { label: [`baton.sandbox.network=${network.Name}`] },
    });
    for (const box of boxes)
      await docker
        .getContainer(box.Id)
        .remove({ force: true })
        .catch(() => undefined);
    const bridge = network.Options?.["com.docker.network.bridge.name"];
    if (bridge) await revokeInterface(bridge);
    await docker
      .getNetwork(network.Id)
      .remove()
      .catch(() => undefined);
  }
}

export async function createDockerDriver(options: DockerDriverOptions): Promise<SandboxDriver> {
  const docker = options.docker ?? new Docker();
  // Without a user namespace a box's uid is a host uid: none may be a real account's.
  const uids = options.uids ?? parseUidRange(DEFAULT_SANDBOX_UIDS);
  checkUidRange(uids, options.accountFiles ?? (await readAccountFiles()));
  // The first call to the engine: a failure to reach it says so and names the fixes.
  await reapOrphans(docker).catch((error: unknown) => {
    throw describeEngineFailure(error, process.env.DOCKER_HOST) ?? error;
  });
  const { serviceDir } = options;
  // The state folder names the service: a network whose folder is gone is reaped by the next driver to start.
  if (serviceDir) await mkdir(serviceDir, { recursive: true });
  const suffix = serviceDir ? serviceKeyOf(serviceDir) : randomBytes(3).toString("hex").slice(0, 5);
  const networkName = `baton-sandbox-net-${suffix}`;
  const record = serviceDir ? join(serviceDir, FORWARDERS_FILE) : undefined;
  const previous = record ? await readForwarders(record, networkName) : undefined;
  const network = docker.getNetwork(networkName);
  // A service's network carries its state folder, never a process stamp: no other driver reaps it as an orphan.
  const existing = serviceDir ? await network.inspect().catch(() => undefined) : undefined;
  if (!existing)
    await docker.createNetwork({
      Name: networkName,
      Driver: "bridge",
      Internal: true,
      CheckDuplicate: true,
      Labels: {
        [SANDBOX_LABEL]: "1",
        ...(serviceDir ? { [SERVICE_LABEL]: serviceDir } : { [OWNER_LABEL]: ownerStamp() }),
      },
      Options: {
        "com.docker.network.bridge.name": `${SANDBOX_INTERFACE_PREFIX}${suffix}`,
        "com.docker.network.bridge.enable_icc": "false",
      },
    });
  const info = (await network.inspect()) as {
    IPAM: { Config: { Gateway?: string }[] };
    Options?: Record<string, string>;
  };
  const bridge = info.Options?.["com.docker.network.bridge.name"] ?? `${SANDBOX_INTERFACE_PREFIX}${suffix}`;
  const forwarders: { name: EndpointName; forwarder: Forwarder; gateway: string }[] = [];
  try {
    const gateway = info.IPAM.Config[0]?.Gateway;
    if (!gateway) throw new Error(`docker network ${networkName} has no gateway address`);
    await ensureBaseRules();
    await ensureDockerUserRule();
    for (const [name, endpoint] of Object.entries(options.endpoints) as [EndpointName, HostEndpoint][]) {
      const forwarder = await startForwarder(gateway, endpoint, previous?.ports[name] ?? 0);
      forwarders.push({ name, forwarder, gateway });
      await allow(bridge, gateway, forwarder.port);
    }
    if (record)
      await writeForwarders(record, {
        network: networkName,
        ports: Object.fromEntries(forwarders.map((f) => [f.name, f.forwarder.port])),
        detached: false,
      });
  } catch (error) {
    await Promise.all(forwarders.map((f) => f.forwarder.close()));
    if (!existing) await network.remove().catch(() => undefined);
    throw error;
  }
  // After a crash, commands the dead service started may still run in its boxes (a container keeps an exec's
  // processes): a restart of each running box ends them, as the namespace driver's boxes lose theirs, and keeps
  // the files. A graceful stop ended them itself.
  if (existing && previous && !previous.detached) {
    const boxes = await docker.listContainers({
      filters: { label: [`baton.sandbox.network=${networkName}`], status: ["running"] },
    });
    for (const box of boxes) await docker.getContainer(box.Id).restart({ t: 0 });
  }
  const reach = Object.fromEntries(forwarders.map((f) => [f.name, f.forwarder.address]));
  const boxUids = createDockerUidPool(docker, uids);
  /**
   * Each box's turn token and lease, and the proxy variables carrying the lease, by container id: never in the
   * container's configuration (the engine's API shows its Env to anyone it answers), given to each command instead,
   * as the namespace driver does. Held in memory only: after a restart the manager gives a turn's own.
   */
  const credentials = new Map<string, Record<string, string>>();
  /** Prepared boxes not yet handed out (container id → uid), and those whose container is being made (names). */
  const pooled = new Map<string, number>();
  const preparing = new Set<string>();
  const boxEnv = await openBoxEnvRecord(serviceDir ? join(serviceDir, BOX_ENV_FILE) : undefined);
  const envOf = (ref: string, env: Record<string, string> | undefined) =>
    Object.entries({ ...boxEnv.get(ref), ...credentials.get(ref), ...env }).map(([k, v]) => `${k}=${v}`);
  const isPooled = (box: Docker.ContainerInfo) =>
    pooled.has(box.Id) || box.Names.some((name) => preparing.has(name.replace(/^\//, "")));

  async function exec(ref: string, argv: readonly string[], options: ExecOptions): Promise<ExecResult> {
    const container = docker.getContainer(ref);
    const seconds = (Math.max(options.timeoutMs, 1) / 1000).toFixed(3);
    // The Engine API cannot kill an exec; coreutils `timeout` inside the box does, and a host deadline backs it.
    const execution = await container.exec({
      Cmd: ["timeout", "--kill-after=2", seconds, ...argv],
      Env: envOf(ref, options.env),
      WorkingDir: options.cwd ?? AGENT_HOME,
      AttachStdin: options.stdin !== undefined,
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = await execution.start({ hijack: true, stdin: options.stdin !== undefined });
    const stdout = new BoundedSink();
    const stderr = new BoundedSink();
    docker.modem.demuxStream(stream, stdout, stderr);
    if (options.stdin !== undefined) {
      stream.write(options.stdin);
      (stream as unknown as { end(): void }).end();
    }
    let hostDeadline = false;
    // The Engine API cannot signal an exec either: `timeout` is the exec's process (its host pid in the inspect
    // answer; the drivers run as root beside the engine), and on SIGTERM it passes the signal to the command's
    // whole process group, then SIGKILL after --kill-after.
    const onAbort = () => {
      void execution
        .inspect()
        .then((running) => {
          if (running.Running && running.Pid > 0) process.kill(running.Pid, "SIGTERM");
        })
        .catch(() => undefined);
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        hostDeadline = true;
        stream.destroy();
        resolve();
      }, options.timeoutMs + 5000);
      stream.once("end", () => {
        clearTimeout(timer);
        resolve();
      });
      stream.once("close", () => {
        clearTimeout(timer);
        resolve();
      });
    });
    options.signal?.removeEventListener("abort", onAbort);
    const inspected = await execution.inspect();
    const exitCode = hostDeadline ? 124 : (inspected.ExitCode ?? 1);
    return {
      exitCode,
      stdout: stdout.text(),
      stderr: stderr.text(),
      timedOut: hostDeadline || exitCode === 124 || (exitCode === 137 && !hostDeadline),
    };
  }

  /**
   * A long-lived exec with its streams open. As for `exec`, `timeout` (here with no limit) is the exec's process,
   * so a TERM to its host pid reaches the command's whole process group, and a KILL follows after --kill-after.
   */
  async function spawn(ref: string, argv: readonly string[], options: SpawnOptions): Promise<BoxProcess> {
    const execution = await docker.getContainer(ref).exec({
      Cmd: ["timeout", "--kill-after=2", "0", ...argv],
      Env: envOf(ref, options.env),
      WorkingDir: options.cwd ?? AGENT_HOME,
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = (await execution.start({ hijack: true, stdin: true })) as Duplex;
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    docker.modem.demuxStream(stream, stdout, stderr);
    const tail = createTail(STDERR_TAIL_CHARS);
    const decoder = new StringDecoder("utf8");
    stderr.on("data", (chunk: Buffer) => tail.push(decoder.write(chunk)));
    // Writes after the command ended fail: the reader sees the exit instead.
    stream.on("error", () => undefined);
    const exited = new Promise<ProcessExit>((resolve) => {
      let settled = false;
      const settle = async () => {
        if (settled) return;
        settled = true;
        stdout.end();
        stderr.end();
        resolve(await exitOf(execution));
      };
      stream.once("end", () => void settle());
      stream.once("close", () => void settle());
    });
    let done = false;
    void exited.then(() => {
      done = true;
    });
    const signal = async (name: "SIGTERM" | "SIGKILL") => {
      const running = await execution.inspect().catch(() => undefined);
      if (running?.Running && running.Pid > 0) {
        try {
          process.kill(running.Pid, name);
        } catch {
          // already gone
        }
      }
    };
    return {
      stdin: Writable.toWeb(stream) as WritableStream<Uint8Array>,
      stdout: Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
      exited,
      stderrTail: () => tail.text(),
      async kill() {
        if (done) return;
        await signal("SIGTERM");
        const gone = await Promise.race([exited.then(() => true), delay(KILL_AFTER_MS + 1000, false)]);
        if (!gone) {
          await signal("SIGKILL");
          stream.destroy();
        }
        await exited;
      },
    };
  }

  /** A created, not yet started, container with its own uid and user: `env` becomes its configuration. */
  async function makeBox(
    name: string,
    image: string,
    env: Record<string, string>,
    labels: Record<string, string> | undefined,
  ): Promise<{ container: Docker.Container; uid: number }> {
    const { made: container, uid } = await boxUids.withUid(
      (uid) =>
        docker.createContainer({
          name,
          Image: image,
          User: `${uid}:${uid}`,
          WorkingDir: AGENT_HOME,
          Env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
          Cmd: ["sleep", "infinity"],
          Labels: {
            ...labels,
            [SANDBOX_LABEL]: "1",
            "baton.sandbox.network": networkName,
            [UID_LABEL]: String(uid),
          },
          HostConfig: {
            // An init as PID 1 reaps what commands leave behind (a killed command's background children), so a
            // long-lived box does not fill with zombies up to its pids limit.
            Init: true,
            NetworkMode: networkName,
            CapDrop: ["ALL"],
            SecurityOpt: ["no-new-privileges"],
            PidsLimit: 2048,
            Sysctls: { "net.ipv6.conf.all.disable_ipv6": "1" },
          },
        }),
      (made) => made.remove({ force: true }),
    );
    try {
      await giveBoxItsUser(container, uid);
    } catch (error) {
      await container.remove({ force: true }).catch(() => undefined);
      throw error;
    }
    return { container, uid };
  }

  /**
   * Copies checkouts into the box (created or running) as one archive per checkout, put at the home: the folders
   * above it first, owned by the box's user, then the checkout's own files under its path, so no command has to
   * run in the box to make them, and each checkout is one call to the engine.
   */
  async function copyCheckouts(
    container: Docker.Container,
    uid: number,
    list: NonNullable<BoxSpec["checkouts"]>,
  ): Promise<void> {
    for (const { hostPath, repository } of list) {
      const inHome = posix.relative(AGENT_HOME, checkoutPathInBox(repository));
      const tar = execa(
        "tar",
        [
          "-c",
          `--owner=${uid}`,
          `--group=${uid}`,
          "--numeric-owner",
          // `./x` becomes `checkouts/<owner>/<name>/x` (members and hard-link targets; symbolic links stay as
          // they are), the path escaped for the expression's replacement.
          `--transform=s|^\\.|${inHome.replace(/[\\|&]/g, "\\$&")}|rhS`,
          "-C",
          hostPath,
          ".",
        ],
        { stdout: "pipe", encoding: "buffer" },
      );
      const body = new PassThrough();
      body.write(directoryEntries([posix.dirname(inHome)], uid, uid));
      tar.stdout.pipe(body);
      await Promise.all([container.putArchive(body, { path: AGENT_HOME }), tar]);
    }
  }

  return {
    name: "docker",
    home: AGENT_HOME,
    spawn,

    async create(spec: BoxSpec): Promise<CreatedBox> {
      const env = resolveBoxEnv(spec, reach);
      const kept = withoutBoxCredentials(env);
      const { container, uid } = await makeBox(spec.name, spec.image, kept, spec.labels);
      try {
        // Copied in before the box starts, so no command has to run in the box first.
        await copyCheckouts(container, uid, spec.checkouts ?? []);
        await container.start();
      } catch (error) {
        await container.remove({ force: true }).catch(() => undefined);
        throw error;
      }
      credentials.set(container.id, withoutKept(env, kept));
      return { ref: container.id, reach };
    },

    async prepare(spec: PreparedBoxSpec): Promise<CreatedBox> {
      // Named before the engine is asked, so a `reap` running meanwhile already knows the box as pooled.
      preparing.add(spec.name);
      try {
        const { container, uid } = await makeBox(spec.name, spec.image, {}, undefined);
        try {
          await container.start();
        } catch (error) {
          await container.remove({ force: true }).catch(() => undefined);
          throw error;
        }
        pooled.set(container.id, uid);
        return { ref: container.id, reach };
      } finally {
        preparing.delete(spec.name);
      }
    },

    async handOut(ref: string, spec: HandOutSpec): Promise<CreatedBox> {
      const uid = pooled.get(ref);
      if (uid === undefined) throw new Error(`box ${ref} is not a prepared box of this driver`);
      // Out of the pool first: whatever happens next, this box is never prepared for anyone else.
      pooled.delete(ref);
      const container = docker.getContainer(ref);
      // The task's name, as a created box has (`docker ps` shows the sandbox; its labels were fixed without it).
      await Promise.all([
        container.rename({ name: spec.name }),
        copyCheckouts(container, uid, spec.checkouts ?? []),
      ]);
      // The container's configuration was fixed empty ahead of the task: all its variables travel with each
      // command, those without credentials also kept in the state folder for the next run to adopt.
      const env = resolveBoxEnv(spec, reach);
      const kept = withoutBoxCredentials(env);
      await boxEnv.set(ref, kept);
      credentials.set(ref, withoutKept(env, kept));
      return { ref, reach };
    },

    exec,

    async copyOut(ref, pathInBox, hostDir) {
      await mkdir(hostDir, { recursive: true });
      const archive = await docker.getContainer(ref).getArchive({ path: pathInBox });
      const tar = execa("tar", ["-x", "--no-same-owner", "-C", hostDir], { stdin: "pipe" });
      await Promise.all([pipeline(archive, tar.stdin), tar]);
    },

    async stop(ref) {
      await docker
        .getContainer(ref)
        .stop({ t: 0 })
        .catch((error: unknown) => {
          if (statusOf(error) !== 304 && statusOf(error) !== 404) throw error;
        });
    },

    async start(ref) {
      await docker
        .getContainer(ref)
        .start()
        .catch((error: unknown) => {
          if (statusOf(error) !== 304) throw error;
        });
    },

    async remove(ref) {
      credentials.delete(ref);
      pooled.delete(ref);
      await boxEnv.delete(ref);
      await docker
        .getContainer(ref)
        .remove({ force: true, v: true })
        .catch((error: unknown) => {
          if (statusOf(error) !== 404) throw error;
        });
    },

    async exists(ref) {
      try {
        await docker.getContainer(ref).inspect();
        return true;
      } catch (error) {
        if (statusOf(error) === 404) return false;
        throw error;
      }
    },

    async reap(keep) {
      const boxes = await docker.listContainers({
        all: true,
        filters: { label: [`baton.sandbox.network=${networkName}`] },
      });
      // This driver's pooled boxes are no task's: the store never lists them, and they are not left-overs.
      const gone = boxes.filter((box) => !keep.has(box.Id) && !isPooled(box)).map((box) => box.Id);
      for (const id of gone) credentials.delete(id);
      for (const id of gone) await boxEnv.delete(id);
      for (const id of gone)
        await docker
          .getContainer(id)
          .remove({ force: true, v: true })
          .catch(() => undefined);
      return gone;
    },

    async detach() {
      for (const { forwarder } of forwarders) await forwarder.close();
      if (record)
        await writeForwarders(record, {
          network: networkName,
          ports: Object.fromEntries(forwarders.map((f) => [f.name, f.forwarder.port])),
          detached: true,
        });
    },

    async close() {
      // Boxes cannot work without this network and its forwarders: they end with the driver.
      credentials.clear();
      pooled.clear();
      await boxEnv.clear();
      const boxes = await docker.listContainers({
        all: true,
        filters: { label: [`baton.sandbox.network=${networkName}`] },
      });
      await Promise.all(
        boxes.map((box) =>
          docker
            .getContainer(box.Id)
            .remove({ force: true })
            .catch(() => undefined),
        ),
      );
      for (const { forwarder } of forwarders) await forwarder.close();
      // Every rule of the bridge, also those of ports an earlier run of the same state folder opened.
      await revokeInterface(bridge);
      await network.remove().catch(() => undefined);
      if (record) await rm(record, { force: true });
    },
  };
}
