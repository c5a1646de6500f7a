// The tracker port: the issue tracker a workspace is connected to, read and written as the member who delegates
// (reference section 4, "GET .../tickets" and "POST .../tickets/delegate"). The local implementation (local.ts)
// holds issues in the store, seeded from the seed document; a real tracker plugs in by implementing this
// interface and giving it to the service (`createServerApp({tasks: {tracker}})`). Whether a workspace's tracker is
// connected and which identity a member linked are the service's own records, not the tracker's.

export interface TrackerIssue {
  /** The tracker's id of the issue. */
  id: string;
  /** What people call it, e.g. `ENG-12`. */
  identifier: string;
  /** Null when the issue has no title. */
  title: string | null;
  /** The issue's text, handed to the agent with the title. */
  context: string;
  state: "open" | "closed";
  /** The tracker identity it is assigned to, or null for the team's unassigned issues. */
  assignee: string | null;
  /** The tracker already records work on it (a delegation claimed it). */
  inProgress: boolean;
  url: string;
}

export interface Tracker {
  readonly kind: string;
  /**
   * Open issues not in progress, assigned to `identity` or to no one, read as `identity`; with `q`, only those
   * whose title contains it (any case). At most `limit`, in the tracker's own order.
   */
  searchIssues(input: {
    workspaceId: string;
    identity: string;
    q: string | null;
    limit: number;
  }): Promise<TrackerIssue[]>;
  /** One issue by its id or its identifier, read as `identity`; undefined when there is none. */
  findIssue(input: {
    workspaceId: string;
    identity: string;
    idOrIdentifier: string;
  }): Promise<TrackerIssue | undefined>;
  /** The service works on the issue for `identity`: assign it to them when it has no assignee, link the task. */
  claimIssue(input: {
    workspaceId: string;
    issueId: string;
    identity: string;
    taskId: string;
  }): Promise<void>;
  /** Posts `body` as a comment on the issue, as the workspace's connection (the agent's reply to its task). */
  postComment(input: { workspaceId: string; issueId: string; body: string }): Promise<void>;
}
