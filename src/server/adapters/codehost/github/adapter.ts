import type { Store } from "../../../store/store.js";
import type { CodehostAppSettings } from "../../integrations/settings.js";
import type { CodehostAppApi } from "../app-api.js";
import { installationOfRepo } from "../installations.js";
import { type Codehost, CodehostError } from "../port.js";
import { type ClientOptions, createGithubClient, type GithubClient } from "./client.js";
import { codehostErrorOf, hasNextPage, readData, settle, statusOf } from "./errors.js";
import { createGithubIssues } from "./issues.js";
import { createGithubPulls } from "./pulls.js";
import { InstallationReposSchema, InstallationSchema } from "./schemas.js";
import { listUserInstallations } from "./user-installations.js";

export interface GithubCodehostOptions extends ClientOptions {
  db: Store;
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
  const { db, settings } = options;
  // Octokit loads on the first call, not when the service is composed (nor ever in `baton` or a client bundle).
  let loading: Promise<GithubClient> | undefined;
  const client = () => {
    loading ??= createGithubClient(options).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  const installationOf = async (workspaceId: string, repo: string): Promise<string> => {
    const installation = await installationOfRepo(db, workspaceId, repo);
    if (!installation)
      throw new CodehostError(
        `no installation of the code-host App gives this workspace ${repo}; an owner or admin installs the App on it from /install/codehost?workspace=${workspaceId}`,
      );
    return installation.installationId;
  };
  const octokitFor = async (workspaceId: string, repo: string) =>
    (await client()).installation(await installationOf(workspaceId, repo));

  return {
    kind: "github",
    tokenDestinations: tokenDestinationsOf(settings),
    async gitUrl(_workspaceId, repo) {
      return `${settings.webUrl}/${repo}.git`;
    },
    ...createGithubPulls({ octokitFor }),
    ...createGithubIssues({ octokitFor, db, installationOf }),
    async getInstallation(installationId) {
      const what = `read installation ${installationId}`;
      const { app } = await client();
      const answer = await settle(
        what,
        () => app.rest.apps.getInstallation({ installation_id: Number(installationId) }),
        [404],
      );
      if (answer.status === 404)
        throw new CodehostError(`the App has no installation ${installationId}; install it again`);
      const installation = readData(InstallationSchema, answer.data, what);
      return { id: String(installation.id), accountLogin: installation.account?.login ?? "" };
    },
    async listInstallationRepos(installationId) {
      const what = `list the repositories of installation ${installationId}`;
      const octokit = (await client()).installation(installationId);
      const repos: string[] = [];
      for (let page = 1, more = true; more; page++) {
        const answer = await settle(what, () =>
          octokit.rest.apps.listReposAccessibleToInstallation({
            per_page: 100,
            ...(page > 1 ? { page } : {}),
          }),
        );
        repos.push(
          ...readData(InstallationReposSchema, answer.data, what).repositories.map((r) => r.full_name),
        );
        more = hasNextPage(answer.headers.link);
      }
      return repos;
    },
    listUserInstallations: async (code) => listUserInstallations(await client(), code),
    async installationToken(installationId) {
      try {
        return await (await client()).installationToken(installationId);
      } catch (error) {
        if (statusOf(error) === 404)
          throw new CodehostError(
            `the App has no installation ${installationId}; install it again from /install/codehost`,
          );
        throw codehostErrorOf(error, `make a token for installation ${installationId}`);
      }
    },
  };
}
