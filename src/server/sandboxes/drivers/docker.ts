// The Docker driver: one container per box on a network of our own that is `internal` (no route out) with
// inter-container traffic off; boxes reach the proxy and the operations transport only through forwarders on
// the network's gateway, and the host firewall rejects everything else. Docker Engine API through dockerode.
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { posix } from "node:path";
import { PassThrough } from "node:stream";
import { pipeline } from "node:stream/promises";
import Docker from "dockerode";
import { execa } from "execa";
import {
  AGENT_GID,
  AGENT_HOME,
  AGENT_UID,
  type BoxSpec,
  type CreatedBox,
  checkoutPathInBox,
  type EndpointName,
  type ExecOptions,
  type ExecResult,
  type HostEndpoint,
  resolveBoxEnv,
  type SandboxDriver,
} from "../driver.js";
import {
  allow,
  ensureBaseRules,
  ensureDockerUserRule,
  revoke,
  revokeInterface,
  SANDBOX_INTERFACE_PREFIX,
} from "../egress/firewall.js";
import { type Forwarder, startForwarder } from "../egress/forwarder.js";
import { BoundedSink } from "./bounded-output.js";
import { directoryTar } from "./directory-tar.js";
import { isOrphaned, OWNER_LABEL, ownerStamp } from "./owner.js";

export const SANDBOX_LABEL = "baton.sandbox";

export interface DockerDriverOptions {
  endpoints: Partial<Record<EndpointName, HostEndpoint>>;
  docker?: Docker;
}

const statusOf = (error: unknown) => (error as { statusCode?: number }).statusCode;

/** Removes the boxes and networks of drivers whose service process died (kill -9, crash). */
async function reapOrphans(docker: Docker): Promise<void> {
  const networks = await docker.listNetworks({ filters: { label: [SANDBOX_LABEL] } });
  for (const network of networks) {
    if (!isOrphaned(network.Labels?.[OWNER_LABEL])) continue;
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
  await reapOrphans(docker);
  const suffix = randomBytes(3).toString("hex").slice(0, 5);
  const bridge = `${SANDBOX_INTERFACE_PREFIX}${suffix}`;
  const networkName = `baton-sandbox-net-${suffix}`;
  await docker.createNetwork({
    Name: networkName,
    Driver: "bridge",
    Internal: true,
    CheckDuplicate: true,
    Labels: { [SANDBOX_LABEL]: "1", [OWNER_LABEL]: ownerStamp() },
    Options: {
      "com.docker.network.bridge.name": bridge,
      "com.docker.network.bridge.enable_icc": "false",
    },
  });
  const network = docker.getNetwork(networkName);
  const forwarders: { name: EndpointName; forwarder: Forwarder; gateway: string }[] = [];
  try {
    const info = (await network.inspect()) as { IPAM: { Config: { Gateway?: string }[] } };
    const gateway = info.IPAM.Config[0]?.Gateway;
    if (!gateway) throw new Error(`docker network ${networkName} has no gateway address`);
    await ensureBaseRules();
    await ensureDockerUserRule();
    for (const [name, endpoint] of Object.entries(options.endpoints) as [EndpointName, HostEndpoint][]) {
      const forwarder = await startForwarder(gateway, endpoint);
      forwarders.push({ name, forwarder, gateway });
      await allow(bridge, gateway, forwarder.port);
    }
  } catch (error) {
    await Promise.all(forwarders.map((f) => f.forwarder.close()));
    await network.remove().catch(() => undefined);
    throw error;
  }
  const reach = Object.fromEntries(forwarders.map((f) => [f.name, f.forwarder.address]));

  async function exec(ref: string, argv: readonly string[], options: ExecOptions): Promise<ExecResult> {
    const container = docker.getContainer(ref);
    const seconds = (Math.max(options.timeoutMs, 1) / 1000).toFixed(3);
    // The Engine API cannot kill an exec; coreutils `timeout` inside the box does, and a host deadline backs it.
    const execution = await container.exec({
      Cmd: ["timeout", "--kill-after=2", seconds, ...argv],
      Env: Object.entries(options.env ?? {}).map(([k, v]) => `${k}=${v}`),
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

  return {
    name: "docker",
    home: AGENT_HOME,

    async create(spec: BoxSpec): Promise<CreatedBox> {
      const container = await docker.createContainer({
        name: spec.name,
        Image: spec.image,
        User: `${AGENT_UID}:${AGENT_GID}`,
        WorkingDir: AGENT_HOME,
        Env: Object.entries(resolveBoxEnv(spec, reach)).map(([k, v]) => `${k}=${v}`),
        Cmd: ["sleep", "infinity"],
        Labels: { ...spec.labels, [SANDBOX_LABEL]: "1", "baton.sandbox.network": networkName },
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
      });
      try {
        // Copied in before the box starts: the folders above each checkout come as an archive of their own
        // (owned by the agent), so no command has to run in the box first to make them.
        const checkouts = (spec.checkouts ?? []).map((checkout) => ({
          ...checkout,
          target: checkoutPathInBox(checkout.repository),
        }));
        if (checkouts.length > 0)
          await container.putArchive(
            directoryTar(
              checkouts.map((checkout) => posix.relative(AGENT_HOME, checkout.target)),
              AGENT_UID,
              AGENT_GID,
            ),
            { path: AGENT_HOME },
          );
        for (const { hostPath, target } of checkouts) {
          const tar = execa(
            "tar",
            ["-c", `--owner=${AGENT_UID}`, `--group=${AGENT_GID}`, "--numeric-owner", "-C", hostPath, "."],
            { stdout: "pipe", encoding: "buffer" },
          );
          const body = new PassThrough();
          tar.stdout.pipe(body);
          await Promise.all([container.putArchive(body, { path: target }), tar]);
        }
        await container.start();
      } catch (error) {
        await container.remove({ force: true }).catch(() => undefined);
        throw error;
      }
      return { ref: container.id, reach };
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

    async close() {
      // Boxes cannot work without this network and its forwarders: they end with the driver.
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
      for (const { forwarder, gateway } of forwarders) {
        await forwarder.close();
        await revoke(bridge, gateway, forwarder.port);
      }
      await network.remove().catch(() => undefined);
    },
  };
}
