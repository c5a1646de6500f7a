// The port's pull-request and file methods over GitHub's REST API, each with the token of the installation that
// gives the workspace the repository.
import type { Codehost, OpenedPullRequest } from "../port.js";
import { CodehostError } from "../port.js";
import { expectStatus, type RestClient, readAnswer } from "./rest.js";
import {
  GraphqlAnswerSchema,
  PullListSchema,
  PullSchema,
  RepoSchema,
  ValidationErrorSchema,
} from "./schemas.js";
import { GITHUB_DRAFT_MUTATIONS, GITHUB_RAW_MEDIA_TYPE, GITHUB_ROUTES } from "./wire.js";

export interface RepoAccess {
  rest: RestClient;
  /** The installation token for the workspace's repository (a CodehostError when no installation gives it). */
  tokenFor(workspaceId: string, repo: string): Promise<string>;
}

const toOpened = (pull: {
  number: number;
  html_url: string;
  merged?: boolean | undefined;
  merged_at?: string | null | undefined;
}): OpenedPullRequest => ({
  number: pull.number,
  url: pull.html_url,
  merged: pull.merged ?? (pull.merged_at !== null && pull.merged_at !== undefined),
});

/** A 422's error texts, joined (GitHub puts "A pull request already exists for …" there). */
function validationText(body: unknown): string {
  const parsed = ValidationErrorSchema.safeParse(body);
  if (!parsed.success) return "";
  return [
    parsed.data.message ?? "",
    ...(parsed.data.errors ?? []).map((e) => `${e.field ?? ""} ${e.message ?? ""}`),
  ].join(" ");
}

export function createGithubPulls(
  access: RepoAccess,
): Pick<Codehost, "openPullRequest" | "isMerged" | "readDefaultBranchFile"> {
  const { rest } = access;
  return {
    async openPullRequest({ workspaceId, repo, branch, title, taskId, body, draft }) {
      const token = await access.tokenFor(workspaceId, repo);
      const info = readAnswer(
        RepoSchema,
        await rest.request({ path: GITHUB_ROUTES.repo(repo), token }),
        [200],
        `read ${repo}`,
      );
      const created = await rest.request({
        method: "POST",
        path: GITHUB_ROUTES.pulls(repo),
        token,
        body: {
          title,
          head: branch,
          base: info.default_branch,
          body: body ?? `Opened by Baton for task ${taskId}.`,
          draft: draft ?? false,
        },
      });
      if (created.status === 201)
        return toOpened(readAnswer(PullSchema, created, [201], `open a pull request on ${repo}`));
      if (created.status !== 422) expectStatus(created, [201], `open a pull request on ${repo}`);
      // 422: the pull request exists already (a retried turn), or the branch is not there.
      const owner = repo.split("/")[0]!;
      const listed = readAnswer(
        PullListSchema,
        await rest.request({
          path: GITHUB_ROUTES.pulls(repo),
          token,
          query: { head: `${owner}:${branch}`, state: "all" },
        }),
        [200],
        `list the pull requests of ${repo}`,
      );
      const existing = listed[0];
      if (existing) {
        // A later turn's request updates what it says: title and body through REST, the draft state through
        // GraphQL (REST cannot change it).
        const updated = await rest.request({
          method: "PATCH",
          path: GITHUB_ROUTES.pull(repo, existing.number),
          token,
          body: { title, ...(body === undefined ? {} : { body }) },
        });
        const pull = readAnswer(
          PullSchema,
          updated,
          [200],
          `update pull request ${existing.number} of ${repo}`,
        );
        if (draft !== undefined && pull.draft !== undefined && pull.draft !== draft && pull.node_id)
          await setDraft(rest, token, pull.node_id, draft, `pull request ${existing.number} of ${repo}`);
        return toOpened(pull);
      }
      throw new CodehostError(
        `branch ${branch} was not pushed to ${repo}, so no pull request can be opened (${validationText(created.body).trim() || "422"})`,
      );
    },
    async isMerged({ workspaceId, repo, number }) {
      const token = await access.tokenFor(workspaceId, repo);
      const answer = await rest.request({ path: GITHUB_ROUTES.pull(repo, number), token });
      if (answer.status === 404) return false;
      return toOpened(readAnswer(PullSchema, answer, [200], `read pull request ${number} of ${repo}`)).merged;
    },
    async readDefaultBranchFile({ workspaceId, repo, path }) {
      if (!/^[A-Za-z0-9_.-]+$/.test(path)) return null;
      const token = await access.tokenFor(workspaceId, repo);
      // Without `ref`, the contents API reads the default branch.
      const answer = await rest.request({
        path: GITHUB_ROUTES.contents(repo, path),
        token,
        accept: GITHUB_RAW_MEDIA_TYPE,
      });
      if (answer.status === 404) return null;
      const body = expectStatus(answer, [200], `read ${path} of ${repo}`);
      return typeof body === "string" ? body : JSON.stringify(body);
    },
  };
}

/** Turns a pull request into a draft or marks it ready for review (GraphQL; GitHub.com's endpoint). */
async function setDraft(rest: RestClient, token: string, id: string, draft: boolean, what: string) {
  const answer = readAnswer(
    GraphqlAnswerSchema,
    await rest.request({
      method: "POST",
      path: GITHUB_ROUTES.graphql,
      token,
      body: {
        query: draft ? GITHUB_DRAFT_MUTATIONS.toDraft : GITHUB_DRAFT_MUTATIONS.ready,
        variables: { id },
      },
    }),
    [200],
    `${draft ? "turn" : "mark"} ${what} ${draft ? "into a draft" : "ready for review"}`,
  );
  if (answer.errors?.length)
    throw new CodehostError(
      `the code host would not ${draft ? "turn" : "mark"} ${what} ${draft ? "into a draft" : "ready for review"}: ${answer.errors.map((e) => e.message ?? "").join("; ")}`,
    );
}
