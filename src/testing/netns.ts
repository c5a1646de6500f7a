// Network namespaces for the proxy's tests and `npm run demo -- --agent <id>` (needs root): each host is a namespace
// joined to this one by a veth pair on its own /30 in 198.18.0.0/15 (the benchmarking range, which the proxy denies
// unless a rule opens it). Names start with "proxy" (or the caller's prefix), or with BATON_NETNS_PREFIX when set,
// so runs by engineers on the same machine never collide; close() removes everything.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface NetnsHost {
  /** The namespace's name (`proxy<hex>`, or `<BATON_NETNS_PREFIX><hex>`). */
  name: string;
  /** The host's address inside its namespace. */
  address: string;
  /** This namespace's end of the link (the only address the host can reach when it has no other route). */
  gateway: string;
  /** Starts a process inside the namespace. */
  spawn(command: string, args: string[], env?: NodeJS.ProcessEnv): ChildProcess;
  /** Runs a command inside the namespace to completion. */
  exec(
    command: string,
    args: string[],
    options?: { env?: NodeJS.ProcessEnv; timeoutMs?: number },
  ): Promise<{
    code: number;
    stdout: string;
    stderr: string;
  }>;
  close(): Promise<void>;
}

async function ip(...args: string[]): Promise<void> {
  await run("ip", args);
}

/** A random /30 in 198.18.0.0/15: 2 + 8 + 6 bits of randomness keep parallel suites apart. */
function pickSubnet(): { gateway: string; address: string } {
  const bytes = randomBytes(3);
  const second = 18 + (bytes[0]! & 1);
  const third = bytes[1]!;
  const fourth = (bytes[2]! & 0xfc) | 0; // .0, .4, ... .252
  return { gateway: `198.${second}.${third}.${fourth + 1}`, address: `198.${second}.${third}.${fourth + 2}` };
}

/** The names' prefix: at most 8 characters, so `<prefix><6 hex>b` fits Linux's 15-character interface names. */
export function netnsPrefix(fallback: string): string {
  const prefix = process.env.BATON_NETNS_PREFIX || fallback;
  if (!/^[a-z][a-z0-9]{0,7}$/.test(prefix)) {
    throw new Error(`BATON_NETNS_PREFIX must be 1 to 8 lowercase letters and digits, got ${prefix}`);
  }
  return prefix;
}

export async function createNetnsHost(options: { prefix?: string } = {}): Promise<NetnsHost> {
  const id = randomBytes(3).toString("hex");
  const prefix = netnsPrefix(options.prefix ?? "proxy");
  const name = `${prefix}${id}`;
  const outside = `${prefix}${id}a`;
  const inside = `${prefix}${id}b`;
  const { gateway, address } = pickSubnet();
  const children = new Set<ChildProcess>();
  await ip("netns", "add", name);
  try {
    await ip("link", "add", outside, "type", "veth", "peer", "name", inside);
    await ip("link", "set", inside, "netns", name);
    await ip("addr", "add", `${gateway}/30`, "dev", outside);
    await ip("link", "set", outside, "up");
    await ip("netns", "exec", name, "ip", "addr", "add", `${address}/30`, "dev", inside);
    await ip("netns", "exec", name, "ip", "link", "set", inside, "up");
    await ip("netns", "exec", name, "ip", "link", "set", "lo", "up");
  } catch (error) {
    await ip("link", "del", outside).catch(() => {});
    await ip("netns", "del", name).catch(() => {});
    throw error;
  }
  return {
    name,
    address,
    gateway,
    spawn(command, args, env) {
      const child = spawn("ip", ["netns", "exec", name, command, ...args], {
        env: env ?? process.env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.add(child);
      child.once("exit", () => children.delete(child));
      return child;
    },
    async exec(command, args, options = {}) {
      try {
        const { stdout, stderr } = await run("ip", ["netns", "exec", name, command, ...args], {
          env: options.env ?? process.env,
          timeout: options.timeoutMs ?? 30_000,
          maxBuffer: 16 * 1024 * 1024,
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const e = error as { code?: number; stdout?: string; stderr?: string };
        return {
          code: typeof e.code === "number" ? e.code : 1,
          stdout: e.stdout ?? "",
          stderr: e.stderr ?? "",
        };
      }
    },
    async close() {
      for (const child of children) child.kill("SIGKILL");
      await ip("link", "del", outside).catch(() => {});
      await ip("netns", "del", name).catch(() => {});
    },
  };
}
