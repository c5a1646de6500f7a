// The real code host: a GitHub App. Each repository's calls use the token of the installation that gives the
// workspace that repository (installations.ts, written by the install callback and the installation webhooks);
// a repository no installation gives is a CodehostError saying to install the App on it. Also the App API the
// install callback and the egress proxy use (app-api.ts).
import type { Logger } from "pino";
import type { Store } from "../../../store/store.js";
import type { CodehostAppSettings } from "../../integrations/settings.js";
import type { CodehostAppApi } from "../app-api.js";
import { installationOfRepo } from "../installations.js";
import { type Codehost, CodehostError } from "../port.js";
import { signAppJwt } from "./app-jwt.js";
import { createInstallationTokens } from "./installation-tokens.js";
import { createGithubIssues } from "./issues.js";
import { createGithubPulls } from "./pulls.js";
import { createRestClient, nextPageOf, readAnswer } from "./rest.js";
import { InstallationReposSchema, InstallationSchema } from "./schemas.js";
import { listUserInstallations } from "./user-installations.js";
import { GITHUB_ROUTES } from "./wire.js";

export interface GithubCodehostOptions {
  db: Store;
  settings: CodehostAppSettings;
  logger: Logger;
  now: () => Date;
  fetch?: typeof fetch | undefined;
  /** The longest wait under a rate limit before a call fails saying when to try again (default 60 s). */
  maxWaitMs?: number | undefined;
  /** Pause before the first retry of a network failure or 5xx (default 500 ms, doubling). */
  retryMinTimeoutMs?: number | undefined;
  /** Each request's timeout (default 30 s); one that times out is retried as a network failure. */
  timeoutMs?: number | undefined;
}

/** `https://github.com/` and `https://api.github.com/`: where an installation token may be sent (DESIGN). */
export function tokenDestinationsOf(settings: Pick<CodehostAppSettings, "webUrl" | "apiUrl">): string[] {
  const of = (url: string) => {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/`;
  };
  return [...new Set([of(settings.webUrl), of(settings.apiUrl)])];
}

export function createGithubCodehost(options: GithubCodehostOptions): Codehost & CodehostAppApi {
  const { db, settings, now } = options;
  const rest = createRestClient({
    apiUrl: settings.apiUrl,
    logger: options.logger,
    now,
    fetch: options.fetch,
    maxWaitMs: options.maxWaitMs,
    retryMinTimeoutMs: options.retryMinTimeoutMs,
    timeoutMs: options.timeoutMs,
  });
  const appJwt = () =>
    signAppJwt({ appId: settings.appId, privateKeyPem: settings.privateKeyPem, now: now() });
  const tokens = createInstallationTokens({ rest, appJwt, now });
  const installationOf = async (workspaceId: string, repo: string): Promise<string> => {
    const installation = await installationOfRepo(db, workspaceId, repo);
    if (!installation)
      throw new CodehostError(
        `no installation of the code-host App gives this workspace ${repo}; an owner or admin installs the App on it from /install/codehost?workspace=${workspaceId}`,
      );
    return installation.installationId;
  };
  const tokenFor = async (workspaceId: string, repo: string) =>
    (await tokens.get(await installationOf(workspaceId, repo))).token;

  return {
    kind: "github",
    tokenDestinations: tokenDestinationsOf(settings),
    async gitUrl(_workspaceId, repo) {
      return `${settings.webUrl}/${repo}.git`;
    },
    ...createGithubPulls({ rest, tokenFor }),
    ...createGithubIssues({ rest, tokenFor, db, installationOf }),
    async getInstallation(installationId) {
      const answer = await rest.request({
        path: GITHUB_ROUTES.installation(installationId),
        token: appJwt(),
      });
      if (answer.status === 404)
        throw new CodehostError(`the App has no installation ${installationId}; install it again`);
      const installation = readAnswer(
        InstallationSchema,
        answer,
        [200],
        `read installation ${installationId}`,
      );
      return { id: String(installation.id), accountLogin: installation.account?.login ?? "" };
    },
    async listInstallationRepos(installationId) {
      const token = (await tokens.get(installationId)).token;
      const repos: string[] = [];
      let path: string | undefined = `${GITHUB_ROUTES.installationRepos}?per_page=100`;
      while (path) {
        const answer = await rest.request({ path, token });
        const page = readAnswer(
          InstallationReposSchema,
          answer,
          [200],
          `list the repositories of installation ${installationId}`,
        );
        repos.push(...page.repositories.map((r) => r.full_name));
        path = nextPageOf(answer.headers.get("link"));
      }
      return repos;
    },
    listUserInstallations: (code) => listUserInstallations({ settings, rest, fetch: options.fetch }, code),
    installationToken: (installationId) => tokens.get(installationId),
  };
}
