// Seed member tokens (`btn_<secret>`) held to the strength rule of created ones (32 random bytes: 43 base64url
// characters after `btn_`) unless the service listens on loopback only: a fixture's guessable tokens would open
// a reachable service to anyone. Pure: the seed and the listeners' exposure in, the refusal's text out.
import { weaknessOf } from "../auth/token-strength.js";
import type { SeedDocument } from "./schema.js";

const PREFIX = "btn_";

export interface WeakSeedToken {
  workspace: string;
  email: string;
  weakness: string;
}

export function weakSeedTokens(seed: SeedDocument): WeakSeedToken[] {
  return seed.workspaces.flatMap((workspace) =>
    workspace.members.flatMap((member) => {
      const weakness = member.token === undefined ? undefined : weaknessOf(member.token.slice(PREFIX.length));
      return weakness ? [{ workspace: workspace.id, email: member.email, weakness }] : [];
    }),
  );
}

/** How to make a strong seed token, named in the refusal and the docs. */
export const MAKE_SEED_TOKEN_HINT =
  "printf 'btn_%s\\n' \"$(openssl rand -base64 32 | tr '+/' '-_' | tr -d '=')\"";

/**
 * The refusal when weak seed tokens meet a listener other machines may reach, or undefined when there is none.
 * `exposed` names those listeners (`--host 0.0.0.0`); empty means loopback only, where any token is accepted.
 */
export function weakSeedTokenRefusal(
  seedPath: string,
  weak: readonly WeakSeedToken[],
  exposed: readonly string[],
): string | undefined {
  if (weak.length === 0 || exposed.length === 0) return undefined;
  const [first] = weak;
  const others =
    weak.length > 1 ? ` (and ${weak.length - 1} more: ${weak.slice(1).map(who).join(", ")})` : "";
  return (
    `seed ${seedPath}: the token of ${who(first!)} is too weak for a service other machines can reach ` +
    `(${exposed.join(", ")}): ${first!.weakness}${others}. Seed tokens follow the rule of created ones off ` +
    `loopback: give each btn_ and 43 random base64url characters (${MAKE_SEED_TOKEN_HINT}), or drop the token ` +
    "and make one on the dashboard's tokens page, or listen on 127.0.0.1 only (--host, --ops-listen, " +
    "--admin-listen)"
  );
}

const who = (token: WeakSeedToken): string => `${token.email} in ${token.workspace}`;
