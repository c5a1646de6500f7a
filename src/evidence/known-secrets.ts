// Which values a sanitiser must know: the overlay's secret assignments (named in environment.sh's header and
// valued in the environment the agent sourced) and the sandbox's own transport credentials. Pure.
import type { KnownSecret } from "./sanitiser.js";

const SECRET_VARIABLE_LINE = /^# baton-variable: \S+ \S+ (\S+) secret$/;
export const TRANSPORT_CREDENTIAL_NAMES = [
  "BATON_TURN_TOKEN",
  "BATON_SANDBOX_LEASE",
  "BATON_ADMIN_TOKEN",
] as const;

/** Assigned names of the secret variables listed in an environment file's header comment block. */
export function secretNamesFromEnvironmentFile(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("#")) break;
    const match = SECRET_VARIABLE_LINE.exec(line);
    if (match) names.push(match[1] as string);
  }
  return names;
}

/** `environmentFileText` is null when there is no environment file yet. */
export function knownSecretsFrom(environmentFileText: string | null, env: NodeJS.ProcessEnv): KnownSecret[] {
  const names = environmentFileText === null ? [] : secretNamesFromEnvironmentFile(environmentFileText);
  const secrets: KnownSecret[] = [];
  for (const name of new Set([...names, ...TRANSPORT_CREDENTIAL_NAMES])) {
    const value = env[name];
    if (value !== undefined && value !== "") secrets.push({ name, value });
  }
  return secrets;
}
