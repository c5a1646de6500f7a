// The code-host port: where agents push branches, the pull requests the service opens for them, and the issues
// members delegate (reference section 4, "GET .../tickets" and "POST .../tickets/delegate"). The local
// implementation (local-git.ts, local-issues.ts) keeps a bare git repository per repository, numbers pull
// requests in the store and holds issues in the store, seeded from the seed document; a real code host plugs in
// by implementing this interface and giving it to the service (`createServerApp({tasks: {codehost}})`). Whether a
// workspace is connected, which repositories it enabled and a member's login are the service's own records.

export interface OpenedPullRequest {
  number: number;
  url: string;
  merged: boolean;
}

export interface CodehostIssue {
  /** The code host's id of the issue. */
  id: string;
  /** `owner/name`. */
  repo: string;
  number: number;
  /** Null when the issue has no title. */
  title: string | null;
  /** The issue's text, handed to the agent with the title. */
  context: string;
  state: "open" | "closed";
  /** The login it is assigned to, or null. */
  assignee: string | null;
  /** Pull requests are issues on some code hosts; the service never delegates one. */
  isPullRequest: boolean;
  /** The code host already records work on it (a delegation claimed it). */
  inProgress: boolean;
  url: string;
}

export interface Codehost {
  readonly kind: string;
  /** The URL an agent clones from and pushes to for `repo` (created on first use). */
  gitUrl(workspaceId: string, repo: string): Promise<string>;
  /**
   * Opens the pull request for a pushed branch, or updates the one open for it (title, and body and draft when
   * given); throws CodehostError when the branch is not there.
   */
  openPullRequest(input: {
    workspaceId: string;
    repo: string;
    branch: string;
    title: string;
    taskId: string;
    /** Its description; unset: the code host's own line naming the task (and an update keeps the old one). */
    body?: string | undefined;
    /** A draft; unset: not a draft (and an update keeps the old state). */
    draft?: boolean | undefined;
  }): Promise<OpenedPullRequest>;
  /** Whether the pull request's branch is merged into the default branch. */
  isMerged(input: { workspaceId: string; repo: string; number: number }): Promise<boolean>;
  /**
   * A file at the root of the default branch, or null when there is none (the sandbox manager reads a known
   * repository's `.batonrc.json` this way when it makes the task's sandbox; nothing is cloned).
   */
  readDefaultBranchFile(input: { workspaceId: string; repo: string; path: string }): Promise<string | null>;
  /**
   * Open issues (not pull requests, not in progress) of `repos`, assigned to `login` or to no one, read as
   * `login`; with `q`, the code host's search terms (the local one: every word in the title or the text). At most
   * `limit`, in the code host's own order.
   */
  searchIssues(input: {
    workspaceId: string;
    login: string;
    repos: readonly string[];
    q: string | null;
    limit: number;
  }): Promise<CodehostIssue[]>;
  /** One issue (or pull request) of `repo` by number; undefined when there is none. */
  findIssue(input: { workspaceId: string; repo: string; number: number }): Promise<CodehostIssue | undefined>;
  /** The service works on the issue for `login`: assign it to them when it has no assignee, link the task. */
  claimIssue(input: {
    workspaceId: string;
    repo: string;
    number: number;
    login: string;
    taskId: string;
  }): Promise<void>;
  /** Posts `body` as a comment on issue `number` of `repo` (the agent's reply to a task started from the issue). */
  postComment(input: { workspaceId: string; repo: string; number: number; body: string }): Promise<void>;
}

export class CodehostError extends Error {
  override readonly name = "CodehostError";
}
