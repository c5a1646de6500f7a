// The sandbox variables a box starts with (pure): the operations transport's three, the proxy settings, the
// repository's `sandbox.env` from `.batonrc.json`, its secrets' placeholders, and, when a code-host installation
// gives the repository, the installation token's placeholder with git set to send it. Credentials come last so a
// `sandbox.env` entry can never replace them.
import { withoutOperatorCredentials } from "../../../credentials/operator-credentials.js";
import { formatSecretPlaceholder } from "../../../transport/wire.js";
import { type CodehostPushAccess, codehostPushEnvironment } from "../codehost/push-credentials.js";
import type { CreatedBox } from "./driver.js";

/** The proxy URL a box's tools use; the lease authenticates the box to `baton proxy` (Proxy-Authorization). */
export function proxyUrlFor(reach: string, lease: string): string {
  return `http://baton:${encodeURIComponent(lease)}@${reach}`;
}

export interface BoxEnvironmentInput {
  reach: CreatedBox["reach"];
  turnToken: string;
  lease: string;
  sandboxEnv: Record<string, string>;
  secrets: readonly { id: string; name: string }[];
  /** The repository's installation at the real code host, if one gives it (push-credentials.ts). */
  codehost?: CodehostPushAccess | undefined;
}

export function buildBoxEnvironment(input: BoxEnvironmentInput): Record<string, string> {
  // A seed's sandboxEnv could name an operator credential by mistake: no box ever holds one.
  let env: Record<string, string> = withoutOperatorCredentials(input.sandboxEnv);
  for (const secret of input.secrets) env[secret.name] = formatSecretPlaceholder(secret.id);
  // Appended after any git settings sandbox.env gives through GIT_CONFIG_COUNT, which keep their indexes.
  if (input.codehost) env = codehostPushEnvironment(input.codehost, env);
  if (input.reach.proxy) {
    // BATON_PROXY_URL (no credentials) is what activation reads to write the proxy and trust settings into
    // environment.sh; the *_PROXY variables cover tools run before the first activation.
    env.BATON_PROXY_URL = `http://${input.reach.proxy}`;
    const url = proxyUrlFor(input.reach.proxy, input.lease);
    const direct = [
      "localhost",
      "127.0.0.1",
      "::1",
      ...(input.reach.ops ? [input.reach.ops.split(":")[0]!] : []),
    ];
    Object.assign(env, {
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      NO_PROXY: direct.join(","),
      no_proxy: direct.join(","),
    });
  }
  if (input.reach.ops) env.BATON_OPS_URL = `http://${input.reach.ops}`;
  env.BATON_TURN_TOKEN = input.turnToken;
  env.BATON_SANDBOX_LEASE = input.lease;
  return env;
}

/** The credential variables for one command (a follow-up turn's token replaces the one the box started with). */
export function credentialEnvironment(
  reach: CreatedBox["reach"],
  turnToken: string,
  lease: string,
): Record<string, string> {
  return buildBoxEnvironment({ reach, turnToken, lease, sandboxEnv: {}, secrets: [] });
}

/**
 * `env` without every variable that carries the turn token or the lease (they themselves, and the proxy URLs
 * holding the lease as password): what a driver may keep in a host file. The box gets the rest at each command.
 */
export function withoutBoxCredentials(env: Readonly<Record<string, string>>): Record<string, string> {
  const secrets = [env.BATON_TURN_TOKEN, env.BATON_SANDBOX_LEASE]
    .filter((value): value is string => value !== undefined && value.length > 0)
    .flatMap((value) => [value, encodeURIComponent(value)]);
  return Object.fromEntries(
    Object.entries(env).filter(([, value]) => !secrets.some((secret) => value.includes(secret))),
  );
}
