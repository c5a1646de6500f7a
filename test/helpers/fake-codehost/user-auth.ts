// The fake code host's user authorization, as GitHub speaks it (docs "Generating a user access token for a GitHub
// App", "List app installations accessible to the user access token"): the installation page hands the browser a
// `code` for the signed-in user when the App requests user authorization during installation; `POST
// /login/oauth/access_token` with the App's client id and secret trades it, once and within ten minutes, for a
// user-to-server token `ghu_…` (errors come back as 200 with `error`, as GitHub does); and `GET
// /user/installations` with that token lists the App's installations the user can access, paginated.
import { randomBytes } from "node:crypto";
import type { ApiAnswer, ApiRequest } from "./api.js";
import type { FakeState } from "./state.js";

const CODE_TTL_MS = 10 * 60 * 1000;
const USER_TOKEN_TTL_S = 8 * 60 * 60;

export const newUserToken = () => `ghu_${randomBytes(18).toString("base64url")}`;

/** A fresh code for `login`, as the installation page puts it on the Setup URL. */
export function issueCode(state: FakeState, login: string): string {
  const code = randomBytes(10).toString("hex");
  state.codes.set(code, { login, expiresAtMs: state.now() + CODE_TTL_MS });
  return code;
}

const oauthError = (error: string, description: string): ApiAnswer => ({
  status: 200,
  body: {
    error,
    error_description: description,
    error_uri: `https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors/#${error.replaceAll("_", "-")}`,
  },
});

/** `POST /login/oauth/access_token` (params from the query or the form or JSON body; GitHub takes all three). */
export function answerTokenExchange(
  state: FakeState,
  app: { clientId: string; clientSecret: string },
  params: URLSearchParams,
): ApiAnswer {
  if (params.get("client_id") !== app.clientId || params.get("client_secret") !== app.clientSecret)
    return oauthError(
      "incorrect_client_credentials",
      "The client_id and/or client_secret passed are incorrect.",
    );
  const code = params.get("code") ?? "";
  const held = state.codes.get(code);
  state.codes.delete(code);
  if (!held || held.expiresAtMs <= state.now())
    return oauthError("bad_verification_code", "The code passed is incorrect or expired.");
  const token = newUserToken();
  state.userTokens.set(token, { login: held.login, expiresAtMs: state.now() + USER_TOKEN_TTL_S * 1000 });
  return {
    status: 200,
    body: {
      access_token: token,
      expires_in: USER_TOKEN_TTL_S,
      refresh_token: `ghr_${randomBytes(30).toString("base64url")}`,
      refresh_token_expires_in: 15_897_600,
      token_type: "bearer",
      scope: "",
    },
  };
}

/** `GET /user/installations` for the user a `ghu_` token acts for. */
export function answerUserRoute(state: FakeState, login: string, req: ApiRequest): ApiAnswer {
  if (req.path !== "/user/installations" || req.method !== "GET")
    return { status: 404, body: { message: "Not Found" } };
  const mine = [...state.installations.values()].filter((i) => i.users.includes(login));
  const perPage = Math.min(100, Number(req.query.get("per_page") ?? 30) || 30);
  const page = Number(req.query.get("page") ?? 1) || 1;
  const last = Math.max(1, Math.ceil(mine.length / perPage));
  const link = (p: number, rel: string) =>
    `<${req.apiUrl}/user/installations?per_page=${perPage}&page=${p}>; rel="${rel}"`;
  const links = [
    ...(page < last ? [link(page + 1, "next"), link(last, "last")] : []),
    ...(page > 1 ? [link(1, "first")] : []),
  ];
  return {
    status: 200,
    body: {
      total_count: mine.length,
      installations: mine.slice((page - 1) * perPage, page * perPage).map((i) => ({
        id: i.id,
        account: { login: i.account, type: "Organization" },
      })),
    },
    headers: links.length ? { link: links.join(", ") } : {},
  };
}
