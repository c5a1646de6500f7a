// Whose installation is it (docs "Generating a user access token for a GitHub App", "List app installations
// accessible to the user access token"): the install callback's `code` is traded at `<web>/login/oauth/access_token`
// with the App's client id and secret for the installer's user-to-server token, and `GET /user/installations` with
// that token lists every installation of the App the installer can access. The token is used for those calls
// only: it is never returned, stored or logged.
import { z } from "zod";
import type { UserInstallations } from "../app-api.js";
import type { GithubClient } from "./client.js";
import { codehostErrorOf, hasNextPage, readData, settle, statusOf } from "./errors.js";

/** GitHub answers a refused code 200 with `error` and a description, which Octokit throws as a 400 carrying it. */
const TokenRefusalSchema = z.object({ error: z.string(), error_description: z.string().optional() });

const UserInstallationsSchema = z.object({
  total_count: z.number(),
  installations: z.array(z.object({ id: z.number(), account: z.object({ login: z.string() }).nullable() })),
});

export async function listUserInstallations(client: GithubClient, code: string): Promise<UserInstallations> {
  let token: string;
  try {
    token = await client.userToken(code);
  } catch (error) {
    const refusal = TokenRefusalSchema.safeParse((error as { response?: { data?: unknown } }).response?.data);
    if (statusOf(error) === 400 && refusal.success)
      return {
        ok: false,
        refusal: `${refusal.data.error}: ${refusal.data.error_description ?? "no description"}`,
      };
    throw codehostErrorOf(error, "trade the installer's code for a token");
  }
  const octokit = client.user(token);
  const what = "list the installer's installations";
  const installationIds: string[] = [];
  for (let page = 1, more = true; more; page++) {
    const answer = await settle(what, () =>
      octokit.rest.apps.listInstallationsForAuthenticatedUser({
        per_page: 100,
        ...(page > 1 ? { page } : {}),
      }),
    );
    installationIds.push(
      ...readData(UserInstallationsSchema, answer.data, what).installations.map((i) => String(i.id)),
    );
    more = hasNextPage(answer.headers.link);
  }
  return { ok: true, installationIds };
}
