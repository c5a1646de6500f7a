// Whose installation is it (docs "Generating a user access token for a GitHub App", "List app installations
// accessible to the user access token"): the install callback's `code` is traded at `<web>/login/oauth/access_token`
// with the App's client id and secret for the installer's user-to-server token, and `GET /user/installations` with
// that token lists every installation of the App the installer can access. The token is used for those calls
// only: it is never returned, stored or logged.
import { z } from "zod";
import type { CodehostAppSettings } from "../../integrations/settings.js";
import type { UserInstallations } from "../app-api.js";
import { CodehostError } from "../port.js";
import { nextPageOf, type RestClient, readAnswer } from "./rest.js";
import { GITHUB_OAUTH_TOKEN_PATH, GITHUB_ROUTES, GITHUB_USER_AGENT } from "./wire.js";

const TIMEOUT_MS = 30_000;

/** GitHub answers the exchange 200 either way: a token, or `error` with a description. */
const TokenExchangeSchema = z.union([
  z.object({ access_token: z.string().min(1) }),
  z.object({ error: z.string(), error_description: z.string().optional() }),
]);

const UserInstallationsSchema = z.object({
  total_count: z.number(),
  installations: z.array(z.object({ id: z.number(), account: z.object({ login: z.string() }).nullable() })),
});

export async function listUserInstallations(
  input: { settings: CodehostAppSettings; rest: RestClient; fetch?: typeof fetch | undefined },
  code: string,
): Promise<UserInstallations> {
  const { settings } = input;
  let response: Response;
  try {
    response = await (input.fetch ?? fetch)(`${settings.webUrl}${GITHUB_OAUTH_TOKEN_PATH}`, {
      method: "POST",
      headers: {
        accept: "application/json",
        "content-type": "application/json",
        "user-agent": GITHUB_USER_AGENT,
      },
      body: JSON.stringify({ client_id: settings.clientId, client_secret: settings.clientSecret, code }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new CodehostError(
      `the code host's OAuth token endpoint did not answer (${(error as Error).name})`,
      {
        cause: error,
      },
    );
  }
  const parsed = TokenExchangeSchema.safeParse(await response.json().catch(() => null));
  if (!response.ok || !parsed.success)
    throw new CodehostError(
      `the code host's OAuth token endpoint answered ${response.status} with a body its docs do not describe`,
    );
  if ("error" in parsed.data)
    return {
      ok: false,
      refusal: `${parsed.data.error}: ${parsed.data.error_description ?? "no description"}`,
    };
  const token = parsed.data.access_token;
  const installationIds: string[] = [];
  let path: string | undefined = `${GITHUB_ROUTES.userInstallations}?per_page=100`;
  while (path) {
    const answer = await input.rest.request({ path, token });
    const page = readAnswer(UserInstallationsSchema, answer, [200], "list the installer's installations");
    installationIds.push(...page.installations.map((i) => String(i.id)));
    path = nextPageOf(answer.headers.get("link"));
  }
  return { ok: true, installationIds };
}
