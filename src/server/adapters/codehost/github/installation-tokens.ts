// Installation tokens (docs "Generating an installation access token for a GitHub App"): `POST
// /app/installations/{id}/access_tokens` with the App JWT gives a token good for an hour. Each is kept until five
// minutes before its `expires_at`, and callers asking at the same time share one request (single flight), so a
// burst of pushes or calls makes one token, not many.
import type { InstallationToken } from "../app-api.js";
import { CodehostError } from "../port.js";
import type { RestClient } from "./rest.js";
import { readAnswer } from "./rest.js";
import { AccessTokenSchema } from "./schemas.js";
import { GITHUB_ROUTES } from "./wire.js";

export const TOKEN_REFRESH_MARGIN_MS = 5 * 60 * 1000;

/** Whether a cached token is still good to hand out at `now` (pure). */
export function isTokenFresh(token: InstallationToken, now: Date): boolean {
  return token.expiresAt.getTime() - TOKEN_REFRESH_MARGIN_MS > now.getTime();
}

export function createInstallationTokens(input: { rest: RestClient; appJwt: () => string; now: () => Date }) {
  const cache = new Map<string, InstallationToken>();
  const pending = new Map<string, Promise<InstallationToken>>();

  const mint = async (installationId: string): Promise<InstallationToken> => {
    const answer = await input.rest.request({
      method: "POST",
      path: GITHUB_ROUTES.accessTokens(installationId),
      token: input.appJwt(),
    });
    if (answer.status === 404)
      throw new CodehostError(
        `the App has no installation ${installationId}; install it again from /install/codehost`,
      );
    const made = readAnswer(
      AccessTokenSchema,
      answer,
      [201],
      `make a token for installation ${installationId}`,
    );
    const token = { token: made.token, expiresAt: new Date(made.expires_at) };
    cache.set(installationId, token);
    return token;
  };

  return {
    get(installationId: string): Promise<InstallationToken> {
      const cached = cache.get(installationId);
      if (cached && isTokenFresh(cached, input.now())) return Promise.resolve(cached);
      let inFlight = pending.get(installationId);
      if (!inFlight) {
        inFlight = mint(installationId).finally(() => pending.delete(installationId));
        pending.set(installationId, inFlight);
      }
      return inFlight;
    },
  };
}
