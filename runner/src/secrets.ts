// The values the runner's sanitiser knows: the secret assignments of the current overlay (named in the
// environment file's header, valued in this process's environment, which the agent sourced) and the sandbox's
// own transport credentials.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { KnownSecret } from "../../src/evidence/sanitiser.js";
import { batonHome } from "./handoff.js";

const VARIABLE_LINE = /^# baton-variable: \S+ \S+ (\S+) secret$/;
const TRANSPORT_CREDENTIALS = ["BATON_TURN_TOKEN", "BATON_SANDBOX_LEASE", "BATON_ADMIN_TOKEN"];

/** Assigned names of secret variables listed in the environment file's header; empty when there is none. */
export function secretNamesFromEnvironmentFile(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("#")) break;
    const match = VARIABLE_LINE.exec(line);
    if (match) names.push(match[1] as string);
  }
  return names;
}

export function collectKnownSecrets(env: NodeJS.ProcessEnv): KnownSecret[] {
  let names: string[] = [];
  try {
    names = secretNamesFromEnvironmentFile(readFileSync(join(batonHome(env), "environment.sh"), "utf8"));
  } catch {
    // No environment file: only the transport credentials and patterns apply.
  }
  const secrets: KnownSecret[] = [];
  for (const name of new Set([...names, ...TRANSPORT_CREDENTIALS])) {
    const value = env[name];
    if (value !== undefined && value !== "") secrets.push({ name, value });
  }
  return secrets;
}
