// Which values a RUN step's output must never show: the sandbox's secret variables (by the environment
// file's manifest and by name), the operations transport credentials, and secret-named build args. Pure.
import { OPERATOR_CREDENTIALS } from "../credentials/operator-credentials.js";
import type { KnownSecret } from "../evidence/index.js";

/**
 * Variables a RUN step does not inherit: a build would not have them, and they grant service access (the
 * transport credentials, and every operator credential an operator's shell may hold).
 */
export const WITHHELD_VARIABLES = [
  "BATON_TURN_TOKEN",
  "BATON_SANDBOX_LEASE",
  ...OPERATOR_CREDENTIALS,
] as const;

const SECRET_NAME =
  /(?:TOKEN|SECRET|PASSW(?:OR)?D|API_?KEY|PRIVATE_?KEY|ACCESS_?KEY|CREDENTIAL|_AUTH|LEASE)/i;

export function collectSecrets(input: {
  env: Readonly<Record<string, string | undefined>>;
  /** Assigned names the environment file marks as secrets. */
  secretNames: readonly string[];
  buildArgs: Readonly<Record<string, string>>;
}): KnownSecret[] {
  const secrets = new Map<string, KnownSecret>();
  const add = (name: string, value: string | undefined) => {
    if (value !== undefined && value.length > 0) secrets.set(`${name}\0${value}`, { name, value });
  };
  for (const name of input.secretNames) add(name, input.env[name]);
  for (const name of WITHHELD_VARIABLES) add(name, input.env[name]);
  for (const [name, value] of Object.entries(input.env)) if (SECRET_NAME.test(name)) add(name, value);
  for (const [name, value] of Object.entries(input.buildArgs)) if (SECRET_NAME.test(name)) add(name, value);
  return [...secrets.values()];
}

/** The sandbox environment a RUN step starts from, before the Dockerfile's ENV and ARG values. */
export function stepBaseEnvironment(
  env: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !(WITHHELD_VARIABLES as readonly string[]).includes(name)) out[name] = value;
  }
  return out;
}
