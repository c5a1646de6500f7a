// Host firewall for sandbox interfaces (every bridge and veth we create is named `baton-sbx-…`): a box may open
// TCP connections to its forwarders' ports on the host and nothing else on the host; anything it tries to send
// past the host is rejected at once (not dropped, so a direct connection fails fast rather than timing out).
// Rules are iptables rules in our own chain; each driver adds and removes only its own ACCEPT lines.
import { execa } from "execa";

export const SANDBOX_INTERFACE_PREFIX = "baton-sbx-";
const CHAIN = "BATON-SANDBOX-IN";
const WILDCARD = `${SANDBOX_INTERFACE_PREFIX}+`;

/** The iptables argument lists that make up the shared part (pure: tested as data). */
export function baseRules(): { check: string[]; add: string[] }[] {
  const hook = ["-i", WILDCARD, "-j", CHAIN];
  const forward = ["-i", WILDCARD, "-j", "REJECT", "--reject-with", "icmp-net-unreachable"];
  const established = ["-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT"];
  const resetTcp = ["-p", "tcp", "-j", "REJECT", "--reject-with", "tcp-reset"];
  const rejectRest = ["-j", "REJECT", "--reject-with", "icmp-port-unreachable"];
  return [
    { check: ["-C", CHAIN, ...established], add: ["-A", CHAIN, ...established] },
    { check: ["-C", CHAIN, ...resetTcp], add: ["-A", CHAIN, ...resetTcp] },
    { check: ["-C", CHAIN, ...rejectRest], add: ["-A", CHAIN, ...rejectRest] },
    { check: ["-C", "INPUT", ...hook], add: ["-I", "INPUT", "1", ...hook] },
    { check: ["-C", "FORWARD", ...forward], add: ["-I", "FORWARD", "1", ...forward] },
  ];
}

/** Docker re-inserts its own FORWARD jumps first, so Docker boxes also get the reject in DOCKER-USER. */
export function dockerUserRule(): { check: string[]; add: string[] } {
  const forward = ["-i", WILDCARD, "-j", "REJECT", "--reject-with", "icmp-net-unreachable"];
  return { check: ["-C", "DOCKER-USER", ...forward], add: ["-I", "DOCKER-USER", "1", ...forward] };
}

/** The ACCEPT rule for one forwarder: `iface` may reach `address:port` over TCP. */
export function allowRule(iface: string, address: string, port: number): string[] {
  return [CHAIN, "-i", iface, "-d", address, "-p", "tcp", "--dport", String(port), "-j", "ACCEPT"];
}

async function iptables(args: string[]): Promise<boolean> {
  const result = await execa("iptables", ["-w", "5", ...args], { reject: false });
  return result.exitCode === 0;
}

let ensured: Promise<void> | undefined;

/** Creates our chain and its hooks once per process; idempotent across processes (checks before adding). */
export function ensureBaseRules(): Promise<void> {
  ensured ??= (async () => {
    await iptables(["-N", CHAIN]); // exists already: fine
    for (const rule of baseRules()) {
      if (await iptables(rule.check)) continue;
      if (!(await iptables(rule.add)))
        throw new Error(`iptables ${rule.add.join(" ")} failed; the sandbox drivers need root and iptables`);
    }
  })();
  return ensured;
}

export async function ensureDockerUserRule(): Promise<void> {
  const rule = dockerUserRule();
  if (!(await iptables(rule.check)) && !(await iptables(rule.add)))
    throw new Error("iptables: cannot add the sandbox reject rule to DOCKER-USER");
}

export async function allow(iface: string, address: string, port: number): Promise<void> {
  await ensureBaseRules();
  const [chain, ...spec] = allowRule(iface, address, port);
  // A restarted service reopens the ports its boxes already may reach: their rules stay as they are.
  if (await iptables(["-C", chain!, ...spec])) return;
  if (!(await iptables(["-I", chain!, "1", ...spec])))
    throw new Error(`cannot let ${iface} reach ${address}:${port} (iptables failed)`);
}

export async function revoke(iface: string, address: string, port: number): Promise<void> {
  const [chain, ...spec] = allowRule(iface, address, port);
  while (await iptables(["-D", chain!, ...spec])) {
    // a rule added twice is removed twice
  }
}

/** Removes every ACCEPT rule of one interface (what a killed driver left). */
export async function revokeInterface(iface: string): Promise<void> {
  const { stdout } = await execa("iptables", ["-w", "5", "-S", CHAIN], { reject: false });
  for (const line of String(stdout).split("\n")) {
    const words = line.split(" ");
    if (words[0] !== "-A" || words[words.indexOf("-i") + 1] !== iface || !words.includes("ACCEPT")) continue;
    await iptables(["-D", ...words.slice(1)]);
  }
}
