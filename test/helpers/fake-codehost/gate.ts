// What every fake API call passes before its route (GitHub's order as observed by clients): a 5xx knob, a
// secondary-limit knob, the primary budget (403 with `x-ratelimit-remaining: 0` once spent), then the
// credentials: the App JWT for `/app/*`, a user-to-server token for `/user/*`, an unexpired installation token for
// the rest.
import { type ApiAnswer, type ApiRequest, answerAppRoute, answerInstallationRoute } from "./api.js";
import { refuseAppJwt } from "./auth.js";
import type { FakeState } from "./state.js";
import { answerUserRoute } from "./user-auth.js";

export async function answerApi(
  state: FakeState,
  app: { appId: string; publicKeyPem: string },
  request: ApiRequest,
  bearer: string | undefined,
): Promise<ApiAnswer> {
  if (state.stalling.count > 0) {
    state.stalling.count--;
    await new Promise((resolve) => setTimeout(resolve, state.stalling.ms));
  }
  if (state.failing.count > 0) {
    state.failing.count--;
    return { status: state.failing.status, body: { message: "Server Error" } };
  }
  if (state.secondary.count > 0) {
    state.secondary.count--;
    const retry = state.secondary.retryAfterS;
    return {
      status: 403,
      body: {
        message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
      },
      headers: retry === null ? {} : { "retry-after": String(retry) },
    };
  }
  if (state.now() >= state.rate.resetMs)
    state.rate = { ...state.rate, remaining: state.rate.limit, resetMs: state.now() + 3600_000 };
  if (state.rate.remaining === 0) return { status: 403, body: { message: "API rate limit exceeded." } };
  state.rate.remaining--;
  if (!bearer) return { status: 401, body: { message: "Requires authentication" } };
  if (request.path.startsWith("/app/")) {
    const refusal = refuseAppJwt(bearer, app.publicKeyPem, app.appId, state.now());
    if (refusal) return { status: 401, body: { message: refusal } };
    return answerAppRoute(state, request);
  }
  if (request.path.startsWith("/user/")) {
    const login = state.userOf(bearer);
    if (login) return answerUserRoute(state, login, request);
    if (state.reposOf(bearer))
      return { status: 403, body: { message: "Resource not accessible by integration" } };
    return { status: 401, body: { message: "Bad credentials" } };
  }
  const installation = state.reposOf(bearer);
  if (!installation) return { status: 401, body: { message: "Bad credentials" } };
  return answerInstallationRoute(state, installation, request);
}

/** The `x-ratelimit-*` headers GitHub sends on every API answer. */
export function rateHeadersOf(state: FakeState, path: string): Record<string, string> {
  return {
    "x-ratelimit-limit": String(state.rate.limit),
    "x-ratelimit-remaining": String(state.rate.remaining),
    "x-ratelimit-reset": String(Math.ceil(state.rate.resetMs / 1000)),
    "x-ratelimit-used": String(state.rate.limit - state.rate.remaining),
    "x-ratelimit-resource": path.startsWith("/search/") ? "search" : "core",
  };
}
