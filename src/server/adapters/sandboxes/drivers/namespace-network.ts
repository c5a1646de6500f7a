// One network namespace per box with a veth pair: the host side `baton-sbx-<5 hex>` and the box's `eth0`, a /30
// from 100.72.0.0/16 (shared address space, unlikely to be in use), no default route: the box reaches the host
// side's address only, where the firewall lets it reach its forwarders and nothing else. IPv6 is off on both
// ends so no link-local path exists.
import { randomBytes, randomInt } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { execa } from "execa";
import { SANDBOX_INTERFACE_PREFIX } from "../egress/firewall.js";

export interface BoxNetwork {
  netns: string;
  hostInterface: string;
  hostAddress: string;
  boxAddress: string;
}

/** The /30 with index `n` (0…16383) of 100.72.0.0/16: host side .1, box side .2 (pure). */
export function addressesFor(index: number): { host: string; box: string } {
  const base = index * 4;
  const third = Math.floor(base / 256);
  const fourth = base % 256;
  return { host: `100.72.${third}.${fourth + 1}`, box: `100.72.${third}.${fourth + 2}` };
}

/** Runs `ip` commands as one process (`ip -batch`, which stops at the first that fails), in `netns` if given. */
async function ipBatch(lines: readonly string[], netns?: string): Promise<void> {
  await execa("ip", [...(netns ? ["-n", netns] : []), "-batch", "-"], { input: `${lines.join("\n")}\n` });
}

async function usedAddresses(): Promise<Set<string>> {
  const { stdout } = await execa("ip", ["-4", "-o", "addr", "show"]);
  return new Set([...stdout.matchAll(/inet (\d+\.\d+\.\d+\.\d+)/g)].map((m) => m[1]!));
}

/**
 * Six processes instead of one per step (twelve): a box's start-up waits on each. IPv6 goes off on the host side
 * before the link comes up (through /proc, no process), and inside before its links come up.
 */
export async function createBoxNetwork(netns: string): Promise<BoxNetwork> {
  const used = await usedAddresses();
  let addresses = addressesFor(randomInt(16384));
  for (let tries = 0; used.has(addresses.host) && tries < 64; tries++)
    addresses = addressesFor(randomInt(16384));
  const suffix = randomBytes(3).toString("hex").slice(0, 5);
  const hostInterface = `${SANDBOX_INTERFACE_PREFIX}${suffix}`;
  const peer = `baton-sbp-${suffix}`;
  await ipBatch([`netns add ${netns}`]);
  try {
    await ipBatch([`link add ${hostInterface} type veth peer name ${peer}`]);
    await writeFile(`/proc/sys/net/ipv6/conf/${hostInterface}/disable_ipv6`, "1");
    await ipBatch([
      `link set ${peer} netns ${netns}`,
      `addr add ${addresses.host}/30 dev ${hostInterface}`,
      `link set ${hostInterface} up`,
    ]);
    await execa("ip", ["netns", "exec", netns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"]);
    await ipBatch(
      [
        `link set ${peer} name eth0`,
        `addr add ${addresses.box}/30 dev eth0`,
        "link set eth0 up",
        "link set lo up",
      ],
      netns,
    );
  } catch (error) {
    await removeBoxNetwork({ netns, hostInterface, hostAddress: addresses.host, boxAddress: addresses.box });
    throw error;
  }
  return { netns, hostInterface, hostAddress: addresses.host, boxAddress: addresses.box };
}

export async function removeBoxNetwork(network: BoxNetwork): Promise<void> {
  await execa("ip", ["link", "del", network.hostInterface], { reject: false });
  await execa("ip", ["netns", "del", network.netns], { reject: false });
}

export async function boxNetworkExists(netns: string): Promise<boolean> {
  const { stdout } = await execa("ip", ["netns", "list"]);
  return stdout.split("\n").some((line) => line.split(" ")[0] === netns);
}
