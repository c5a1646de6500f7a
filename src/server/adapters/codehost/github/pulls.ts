// The port's pull-request and file methods over GitHub's REST API (Octokit's REST methods), each as the
// installation that gives the workspace the repository.
import type { Codehost, OpenedPullRequest } from "../port.js";
import { CodehostError } from "../port.js";
import type { GithubOctokit } from "./client.js";
import { readData, settle } from "./errors.js";
import {
  GraphqlAnswerSchema,
  PullListSchema,
  PullSchema,
  RepoSchema,
  ValidationErrorSchema,
} from "./schemas.js";
import { GITHUB_DRAFT_MUTATIONS, GITHUB_RAW_MEDIA_TYPE } from "./wire.js";

export interface RepoAccess {
  /** Octokit as the installation that gives the workspace the repository (a CodehostError when none does). */
  octokitFor(workspaceId: string, repo: string): Promise<GithubOctokit>;
}

/** `acme/web` → `{owner: "acme", repo: "web"}`, Octokit's parameters. */
export const ownerRepo = (repo: string) => {
  const [owner = "", name = ""] = repo.split("/");
  return { owner, repo: name };
};

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
  return {
    async openPullRequest({ workspaceId, repo, branch, title, taskId, body, draft }) {
      const octokit = await access.octokitFor(workspaceId, repo);
      const info = readData(
        RepoSchema,
        (await settle(`read ${repo}`, () => octokit.rest.repos.get(ownerRepo(repo)))).data,
        `read ${repo}`,
      );
      const opening = `open a pull request on ${repo}`;
      const created = await settle(
        opening,
        () =>
          octokit.rest.pulls.create({
            ...ownerRepo(repo),
            title,
            head: branch,
            base: info.default_branch,
            body: body ?? `Opened by Baton for task ${taskId}.`,
            draft: draft ?? false,
          }),
        [422],
      );
      if (created.status !== 422) return toOpened(readData(PullSchema, created.data, opening));
      // 422: the pull request exists already (a retried turn), or the branch is not there.
      const listing = `list the pull requests of ${repo}`;
      const listed = readData(
        PullListSchema,
        (
          await settle(listing, () =>
            octokit.rest.pulls.list({
              ...ownerRepo(repo),
              head: `${ownerRepo(repo).owner}:${branch}`,
              state: "all",
            }),
          )
        ).data,
        listing,
      );
      const existing = listed[0];
      if (existing) {
        // A later turn's request updates what it says: title and body through REST, the draft state through
        // GraphQL (REST cannot change it).
        const updating = `update pull request ${existing.number} of ${repo}`;
        const updated = await settle(updating, () =>
          octokit.rest.pulls.update({
            ...ownerRepo(repo),
            pull_number: existing.number,
            title,
            ...(body === undefined ? {} : { body }),
          }),
        );
        const pull = readData(PullSchema, updated.data, updating);
        if (draft !== undefined && pull.draft !== undefined && pull.draft !== draft && pull.node_id)
          await setDraft(octokit, pull.node_id, draft, `pull request ${existing.number} of ${repo}`);
        return toOpened(pull);
      }
      throw new CodehostError(
        `branch ${branch} was not pushed to ${repo}, so no pull request can be opened (${validationText(created.data).trim() || "422"})`,
      );
    },
    async isMerged({ workspaceId, repo, number }) {
      const what = `read pull request ${number} of ${repo}`;
      const octokit = await access.octokitFor(workspaceId, repo);
      const answer = await settle(
        what,
        () => octokit.rest.pulls.get({ ...ownerRepo(repo), pull_number: number }),
        [404],
      );
      if (answer.status === 404) return false;
      return toOpened(readData(PullSchema, answer.data, what)).merged;
    },
    async readDefaultBranchFile({ workspaceId, repo, path }) {
      if (!/^[A-Za-z0-9_.-]+$/.test(path)) return null;
      const octokit = await access.octokitFor(workspaceId, repo);
      // Without `ref`, the contents API reads the default branch; the raw media type answers the file's bytes.
      const answer = await settle(
        `read ${path} of ${repo}`,
        () =>
          octokit.rest.repos.getContent({
            ...ownerRepo(repo),
            path,
            headers: { accept: GITHUB_RAW_MEDIA_TYPE },
          }),
        [404],
      );
      if (answer.status === 404) return null;
      const data: unknown = answer.data;
      if (typeof data === "string") return data;
      if (data instanceof ArrayBuffer) return new TextDecoder().decode(data);
      return JSON.stringify(data);
    },
  };
}

/** Turns a pull request into a draft or marks it ready for review (GraphQL; GitHub.com's endpoint). */
async function setDraft(octokit: GithubOctokit, id: string, draft: boolean, what: string) {
  const doing = `${draft ? "turn" : "mark"} ${what} ${draft ? "into a draft" : "ready for review"}`;
  // `POST <api>/graphql` as GitHub.com lays it out (Octokit's graphql() would move it to `/api/graphql` on a server).
  const answer = readData(
    GraphqlAnswerSchema,
    (
      await settle(doing, () =>
        octokit.request("POST /graphql", {
          query: draft ? GITHUB_DRAFT_MUTATIONS.toDraft : GITHUB_DRAFT_MUTATIONS.ready,
          variables: { id },
        }),
      )
    ).data,
    doing,
  );
  if (answer.errors?.length)
    throw new CodehostError(
      `the code host would not ${doing}: ${answer.errors.map((e) => e.message ?? "").join("; ")}`,
    );
}
