// Reference section 4 rule 2, the deciding half: which of a checkout's remotes name a repository on the code host,
// in the order the client tries them. Pure: the git and ssh adapter (git-remotes.ts) supplies remotes and aliases.

/** The code host's hostnames (DESIGN: the codehost is GitHub); BATON_CODEHOST_HOSTS replaces them. */
export const DEFAULT_CODEHOST_HOSTS: readonly string[] = ["github.com"];
export const CODEHOST_HOSTS_ENV = "BATON_CODEHOST_HOSTS";

export interface RemoteUrl {
  /** Lower-case hostname, or an SSH alias as written (resolved later). */
  host: string;
  /** True when the host may be an SSH alias (scp-like or ssh:// URLs). */
  ssh: boolean;
  repo: string;
}

export interface Remote {
  name: string;
  url: string;
}

export interface Candidate {
  remote: string;
  repo: string;
}

/** The code host's hostnames from the environment's comma list, or the default. */
export function codehostHosts(env: NodeJS.ProcessEnv): string[] {
  const listed = (env[CODEHOST_HOSTS_ENV] ?? "")
    .split(",")
    .map((host) => host.trim().toLowerCase())
    .filter((host) => host !== "");
  return listed.length > 0 ? listed : [...DEFAULT_CODEHOST_HOSTS];
}

const OWNER_NAME = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/;

/** `owner/name` from a URL path: leading and trailing slashes and one trailing `.git` dropped. */
function repoFromPath(path: string): string | undefined {
  const trimmed = path
    .replace(/^\/+/, "")
    .replace(/\/+$/, "")
    .replace(/\.git$/, "");
  const match = OWNER_NAME.exec(trimmed);
  if (!match || match[2] === "" || match[1] === "." || match[2] === ".") return undefined;
  return `${match[1]}/${match[2]}`;
}

/** https://, http://, ssh:// (user, port), git:// and scp-like `user@host:owner/name.git`; else undefined. */
export function parseRemoteUrl(url: string): RemoteUrl | undefined {
  const text = url.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(text);
  if (scheme) {
    const protocol = scheme[1]!.toLowerCase();
    if (!["https", "http", "ssh", "git", "git+ssh", "ssh+git"].includes(protocol)) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      return undefined;
    }
    const repo = repoFromPath(decodeURIComponent(parsed.pathname));
    if (!repo || parsed.hostname === "") return undefined;
    return { host: parsed.hostname.toLowerCase(), ssh: protocol.includes("ssh"), repo };
  }
  // scp-like: [user@]host:path, where host has no slash (git's rule) and the path does not start with `/`... or does.
  const scp = /^(?:[^@/]+@)?([^:/]+):(.+)$/.exec(text);
  if (!scp) return undefined;
  const repo = repoFromPath(scp[2]!);
  return repo ? { host: scp[1]!, ssh: true, repo } : undefined;
}

/**
 * The remotes to try, in order: `origin`, then `upstream`, when on the code host; only when neither is, the
 * other code-host remotes by name. `resolve` maps an SSH host (maybe an alias) to its real hostname.
 */
export function chooseCandidates(
  remotes: readonly Remote[],
  hosts: readonly string[],
  resolve: (sshHost: string) => string,
): Candidate[] {
  const onCodehost: Candidate[] = [];
  const seen = new Set<string>();
  for (const remote of remotes) {
    if (seen.has(remote.name)) continue;
    const parsed = parseRemoteUrl(remote.url);
    if (!parsed) continue;
    const host = parsed.ssh ? resolve(parsed.host).toLowerCase() : parsed.host;
    if (!hosts.includes(host)) continue;
    seen.add(remote.name);
    onCodehost.push({ remote: remote.name, repo: parsed.repo });
  }
  const preferred = ["origin", "upstream"].flatMap((name) => onCodehost.filter((c) => c.remote === name));
  if (preferred.length > 0) return preferred;
  return onCodehost.sort((a, b) => a.remote.localeCompare(b.remote));
}
