// Reference section 4 rule 2, the I/O half: the checkout's remotes from `git remote -v` and SSH host aliases
// resolved with `ssh -G` (reads the ssh configuration only; no network). chooseCandidates decides.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import {
  type Candidate,
  chooseCandidates,
  codehostHosts,
  parseRemoteUrl,
  type Remote,
} from "./repository-choice.js";

const run = promisify(execFile);
/** An ssh_config file to read instead of the user's (`ssh -F`); for tests and unusual set-ups. */
export const SSH_CONFIG_ENV = "BATON_SSH_CONFIG";

/** The remotes of the checkout at `cwd` (fetch URLs), or undefined when `cwd` is not inside a git checkout. */
export async function readRemotes(cwd: string, env: NodeJS.ProcessEnv): Promise<Remote[] | undefined> {
  let stdout: string;
  try {
    ({ stdout } = await run("git", ["remote", "-v"], { cwd, env, timeout: 10_000 }));
  } catch {
    return undefined; // not a checkout, or no git: the agent picks the repository
  }
  const remotes: Remote[] = [];
  for (const line of stdout.split("\n")) {
    const match = /^(\S+)\t(.+) \(fetch\)$/.exec(line);
    if (match) remotes.push({ name: match[1]!, url: match[2]! });
  }
  return remotes;
}

/** The hostname `ssh -G` gives for `alias`; the alias itself when ssh is missing or says nothing. */
export async function resolveSshHost(alias: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (alias.startsWith("-")) return alias; // never an option to ssh
  const config = env[SSH_CONFIG_ENV];
  const args = [...(config ? ["-F", config] : []), "-G", alias];
  try {
    const { stdout } = await run("ssh", args, { env, timeout: 10_000 });
    return /^hostname (\S+)$/m.exec(stdout)?.[1] ?? alias;
  } catch {
    return alias;
  }
}

/** The code-host repositories of the checkout at `cwd` in the order to try; undefined outside a checkout. */
export async function findCandidateRepositories(
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<Candidate[] | undefined> {
  const remotes = await readRemotes(cwd, env);
  if (!remotes) return undefined;
  const hosts = codehostHosts(env);
  const resolved = new Map<string, string>();
  for (const remote of remotes) {
    const host = sshHostOf(remote.url);
    if (host && !hosts.includes(host.toLowerCase()) && !resolved.has(host))
      resolved.set(host, await resolveSshHost(host, env));
  }
  return chooseCandidates(remotes, hosts, (host) => resolved.get(host) ?? host);
}

function sshHostOf(url: string): string | undefined {
  const parsed = parseRemoteUrl(url);
  return parsed?.ssh ? parsed.host : undefined;
}
