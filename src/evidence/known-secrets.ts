// Which values a sanitiser must know: the overlay's secret assignments (named in environment.sh's header and
// valued in the environment the agent sourced), the sandbox's own transport credentials, and variables the
// agent's shell exported whose names and values say they are secrets. Pure.
import { OPERATOR_CREDENTIALS } from "../credentials/operator-credentials.js";
import { looksGeneratedValue } from "./entropy.js";
import type { KnownSecret } from "./sanitiser.js";

const SECRET_VARIABLE_LINE = /^# baton-variable: \S+ \S+ (\S+) secret$/;
/** The sandbox's transport credentials, and the operator's (which a script should never see, but if it does). */
export const TRANSPORT_CREDENTIAL_NAMES = [
  "BATON_TURN_TOKEN",
  "BATON_SANDBOX_LEASE",
  ...OPERATOR_CREDENTIALS,
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

/** Words in a variable's name that say it holds a credential (as the Dockerfile engine's RUN output uses). */
const SECRET_VARIABLE_NAME =
  /(?:TOKEN|SECRET|PASSW(?:OR)?D|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL|_AUTH)/i;
/** ...unless the name ends like one that holds where or what a credential is rather than the credential. */
const NOT_A_SECRET_VALUE_NAME =
  /[_-](?:ID|IDS|NAME|NAMES|VERSION|URL|URI|PATH|FILE|DIR|TYPE|LENGTH|COUNT|TTL|EXPIRY|EXPIRES|AT|SOCK|HOST|PORT|USER|USERNAME|HEADER|SCOPES?)$/i;

/**
 * A variable the agent's shell exports that no manifest lists, e.g. `DEPLOY_TOKEN`: a secret when its name
 * says so and its value looks generated (not a path, a sentence, a reference or a short word).
 */
export function isUnlistedSecret(name: string, value: string): boolean {
  if (!SECRET_VARIABLE_NAME.test(name) || NOT_A_SECRET_VALUE_NAME.test(name)) return false;
  if (/\s/.test(value) || /^(?:\/|~|\.{1,2}\/)/.test(value)) return false;
  return looksGeneratedValue(value);
}

/**
 * The secrets listed in the environment file (`environmentFileText`, null when there is none) and the
 * transport credentials, valued from `env`; then every other variable of `env` that isUnlistedSecret.
 */
export function knownSecretsFrom(environmentFileText: string | null, env: NodeJS.ProcessEnv): KnownSecret[] {
  const names = environmentFileText === null ? [] : secretNamesFromEnvironmentFile(environmentFileText);
  const listed = new Set([...names, ...TRANSPORT_CREDENTIAL_NAMES]);
  const secrets: KnownSecret[] = [];
  for (const name of listed) {
    const value = env[name];
    if (value !== undefined && value !== "") secrets.push({ name, value });
  }
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !listed.has(name) && isUnlistedSecret(name, value))
      secrets.push({ name, value });
  }
  return secrets;
}
