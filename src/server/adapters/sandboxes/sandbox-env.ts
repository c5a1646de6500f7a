// One repository's `sandbox.env` from its two sources (pure). The service's repository record (seed, admin API)
// wins over the checkout's `.batonrc.json`: owners and admins configure the record for their workspace and can
// change it without a commit, while any branch can carry a `.batonrc.json`. A secret of the same name wins over
// both (its placeholder is what the proxy swaps), so such a `sandbox.env` entry is dropped.

export interface SandboxEnvEntry {
  name: string;
  value: string;
}

export interface SandboxEnvSources {
  /** The service's repository record (`sandboxEnv` in the seed). */
  configured: readonly SandboxEnvEntry[];
  /** `.batonrc.json`'s `sandbox.env` from the checkout the sandbox was created with. */
  batonrc: Readonly<Record<string, string>>;
  /** The repository's secrets' names. */
  secretNames: readonly string[];
}

/** The merged entries, sorted by name. */
export function mergeSandboxEnv(sources: SandboxEnvSources): SandboxEnvEntry[] {
  const merged = new Map<string, string>(Object.entries(sources.batonrc));
  for (const { name, value } of sources.configured) merged.set(name, value);
  for (const name of sources.secretNames) merged.delete(name);
  return [...merged]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => ({ name, value }));
}
