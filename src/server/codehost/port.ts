// The code-host port: where agents push branches, and the pull requests the service opens for them. The local
// implementation (local-git.ts) keeps a bare git repository per repository and numbers pull requests in the store.

export interface OpenedPullRequest {
  number: number;
  url: string;
  merged: boolean;
}

export interface Codehost {
  readonly kind: string;
  /** The URL an agent clones from and pushes to for `repo` (created on first use). */
  gitUrl(workspaceId: string, repo: string): Promise<string>;
  /** Opens (or finds) the pull request for a pushed branch; throws CodehostError when the branch is not there. */
  openPullRequest(input: {
    workspaceId: string;
    repo: string;
    branch: string;
    title: string;
    taskId: string;
  }): Promise<OpenedPullRequest>;
  /** Whether the pull request's branch is merged into the default branch. */
  isMerged(input: { workspaceId: string; repo: string; number: number }): Promise<boolean>;
  /**
   * A file at the root of the default branch, or null when there is none (the sandbox manager reads a known
   * repository's `.batonrc.json` this way when it makes the task's sandbox; nothing is cloned).
   */
  readDefaultBranchFile(input: { workspaceId: string; repo: string; path: string }): Promise<string | null>;
}

export class CodehostError extends Error {
  override readonly name = "CodehostError";
}
