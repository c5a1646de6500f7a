// The port's issue methods over GitHub's REST API. An App reads with its installation token, not as the member:
// the search runs once per installation over the repositories it gives, and "assigned to the member or to no one"
// is applied to the answers (search has no OR of assignees). GitHub keeps no mark of Baton's work on an issue, so
// "in progress" is the service's own record: a task of the workspace started from that issue.
import type { Store } from "../../../store/store.js";
import type { Codehost, CodehostIssue } from "../port.js";
import { readData, settle } from "./errors.js";
import { ownerRepo, type RepoAccess } from "./pulls.js";
import { type GithubIssue, IssueSchema, SearchIssuesSchema } from "./schemas.js";

const SEARCH_PAGE = 100;

/** The search query: the member's terms, then the qualifiers (pure). */
export function searchQueryOf(q: string | null, repos: readonly string[]): string {
  return [q?.trim() ?? "", "is:issue", "is:open", ...repos.map((r) => `repo:${r}`)].filter(Boolean).join(" ");
}

/** `https://api.github.com/repos/acme/web` → `acme/web`. */
const repoOfUrl = (url: string | undefined) => /\/repos\/([^/]+\/[^/]+)$/.exec(url ?? "")?.[1];

export function claimCommentOf(taskId: string): string {
  return `Baton is working on this (task ${taskId})`;
}

export function createGithubIssues(
  access: RepoAccess & { db: Store; installationOf(workspaceId: string, repo: string): Promise<string> },
): Pick<Codehost, "searchIssues" | "findIssue" | "claimIssue" | "postComment"> {
  const { db } = access;
  const inProgress = async (workspaceId: string, repo: string, number: number) =>
    (await db.get("SELECT 1 FROM tasks WHERE workspace_id = ? AND repo = ? AND ticket_number = ? LIMIT 1", [
      workspaceId,
      repo,
      number,
    ])) !== undefined;
  const toIssue = async (workspaceId: string, issue: GithubIssue, repo: string): Promise<CodehostIssue> => ({
    id: String(issue.id),
    repo,
    number: issue.number,
    title: issue.title,
    context: issue.body ?? "",
    state: issue.state,
    assignee: issue.assignee?.login ?? null,
    isPullRequest: issue.pull_request !== undefined,
    inProgress: await inProgress(workspaceId, repo, issue.number),
    url: issue.html_url,
  });

  return {
    async searchIssues({ workspaceId, login, repos, q, limit }) {
      const byInstallation = new Map<string, string[]>();
      for (const repo of repos) {
        const id = await access.installationOf(workspaceId, repo);
        byInstallation.set(id, [...(byInstallation.get(id) ?? []), repo]);
      }
      const found: CodehostIssue[] = [];
      for (const group of byInstallation.values()) {
        const octokit = await access.octokitFor(workspaceId, group[0]!);
        const answer = await settle("search issues", () =>
          octokit.rest.search.issuesAndPullRequests({ q: searchQueryOf(q, group), per_page: SEARCH_PAGE }),
        );
        const { items } = readData(SearchIssuesSchema, answer.data, "search issues");
        for (const item of items) {
          // The member's terms may carry qualifiers of their own (`org:`, `repo:`): only the asked repositories
          // count, named as the workspace names them.
          const fromUrl = repoOfUrl(item.repository_url)?.toLowerCase();
          const repo = group.find((r) => r.toLowerCase() === fromUrl);
          if (!repo) continue;
          const issue = await toIssue(workspaceId, item, repo);
          if (issue.isPullRequest || issue.inProgress || issue.state !== "open") continue;
          if (issue.assignee !== null && issue.assignee !== login) continue;
          found.push(issue);
        }
      }
      return found.slice(0, limit);
    },
    async findIssue({ workspaceId, repo, number }) {
      const answer = await readIssue(workspaceId, repo, number, [404, 410]);
      if (answer === undefined) return undefined;
      return toIssue(workspaceId, answer, repo);
    },
    async claimIssue({ workspaceId, repo, number, login, taskId }) {
      const issue = (await readIssue(workspaceId, repo, number, []))!;
      const octokit = await access.octokitFor(workspaceId, repo);
      if (!issue.assignee)
        await settle(`assign issue ${number} of ${repo} to ${login}`, () =>
          octokit.rest.issues.addAssignees({ ...ownerRepo(repo), issue_number: number, assignees: [login] }),
        );
      await postComment(workspaceId, repo, number, claimCommentOf(taskId));
    },
    async postComment({ workspaceId, repo, number, body }) {
      await postComment(workspaceId, repo, number, body);
    },
  };

  async function readIssue(workspaceId: string, repo: string, number: number, gone: readonly number[]) {
    const what = `read issue ${number} of ${repo}`;
    const octokit = await access.octokitFor(workspaceId, repo);
    const answer = await settle(
      what,
      () => octokit.rest.issues.get({ ...ownerRepo(repo), issue_number: number }),
      gone,
    );
    return gone.includes(answer.status) ? undefined : readData(IssueSchema, answer.data, what);
  }

  async function postComment(workspaceId: string, repo: string, number: number, body: string) {
    const octokit = await access.octokitFor(workspaceId, repo);
    await settle(`comment on issue ${number} of ${repo}`, () =>
      octokit.rest.issues.createComment({ ...ownerRepo(repo), issue_number: number, body }),
    );
  }
}
