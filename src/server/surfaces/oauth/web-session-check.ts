// Issue 35 A.6: the authorization server's own session (its `_session` cookie) must never stand in for the
// dashboard's. oidc-provider remembers a signed-in browser and a client's grant, and without this would give an
// app approved earlier a new code silently after the dashboard session was signed out. Here the login prompt asks
// again unless the request carries a live web session of the same person, and the approval page (which needs
// that session) is where it is asked.
import type { interactionPolicy as InteractionPolicy, KoaContextWithOIDC } from "oidc-provider";
import { findLiveWebSession, SESSION_COOKIE } from "../../domain/auth/web-sessions.js";
import type { OAuthDeps } from "./deps.js";

/** The value of one cookie in a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/** The library's default prompts with one more login check: a live web session of the session's account. */
export function requireLiveWebSession(
  policy: typeof InteractionPolicy,
  deps: Pick<OAuthDeps, "db" | "now">,
): InteractionPolicy.Prompt[] {
  const prompts = policy.base();
  const login = prompts.get("login");
  if (!login) throw new Error("oidc-provider's base interaction policy has no login prompt");
  login.checks.add(
    new policy.Check(
      "no_web_session",
      "the dashboard session this sign-in needs has ended",
      async (ctx: KoaContextWithOIDC) => {
        // The approval just given (the interaction's result) was made on a live web session.
        if (ctx.oidc.result?.login) return policy.Check.NO_NEED_TO_PROMPT;
        const id = cookieValue(ctx.get("cookie"), SESSION_COOKIE);
        const live = id ? await findLiveWebSession(deps.db, id, deps.now().getTime()) : undefined;
        return live && live.userId === ctx.oidc.session?.accountId
          ? policy.Check.NO_NEED_TO_PROMPT
          : policy.Check.REQUEST_PROMPT;
      },
    ),
  );
  return prompts;
}
