// The fields the service reads of the code host's webhook payloads (GitHub's shapes: `issues`, `issue_comment`,
// `pull_request`, `installation`, `installation_repositories`), parsed once with zod; everything else is ignored.
import { z } from "zod";

const Account = z.object({ login: z.string(), type: z.string().optional() });
const Installation = z.object({ id: z.number().int() });
const Repository = z.object({ full_name: z.string() });
const Label = z.object({ name: z.string() });

const Issue = z.object({
  id: z.number().int(),
  number: z.number().int(),
  title: z.string().nullable().optional(),
  body: z.string().nullable().optional(),
  state: z.string().optional(),
  pull_request: z.unknown().optional(),
});

export const CodehostIssuesEventSchema = z.object({
  action: z.string(),
  issue: Issue,
  assignee: Account.nullable().optional(),
  label: Label.optional(),
  repository: Repository,
  sender: Account,
  installation: Installation,
});
export type CodehostIssuesEvent = z.infer<typeof CodehostIssuesEventSchema>;

export const CodehostIssueCommentEventSchema = z.object({
  action: z.string(),
  issue: Issue,
  comment: z.object({ id: z.number().int(), body: z.string().nullable(), user: Account }),
  repository: Repository,
  sender: Account,
  installation: Installation,
});
export type CodehostIssueCommentEvent = z.infer<typeof CodehostIssueCommentEventSchema>;

export const CodehostPullRequestEventSchema = z.object({
  action: z.string(),
  pull_request: z.object({ number: z.number().int(), merged: z.boolean().nullable().optional() }),
  repository: Repository,
  installation: Installation,
});
export type CodehostPullRequestEvent = z.infer<typeof CodehostPullRequestEventSchema>;

export const CodehostInstallationEventSchema = z.object({
  action: z.string(),
  installation: Installation.extend({ account: Account }),
  repositories: z.array(Repository).optional(),
  sender: Account.optional(),
});
export type CodehostInstallationEvent = z.infer<typeof CodehostInstallationEventSchema>;

export const CodehostInstallationReposEventSchema = z.object({
  action: z.string(),
  installation: Installation.extend({ account: Account }),
  repositories_added: z.array(Repository).default([]),
  repositories_removed: z.array(Repository).default([]),
  sender: Account.optional(),
});
export type CodehostInstallationReposEvent = z.infer<typeof CodehostInstallationReposEventSchema>;

/** The `X-GitHub-Event` names the service acts on. */
export const CODEHOST_EVENTS = {
  issues: "issues",
  issueComment: "issue_comment",
  pullRequest: "pull_request",
  installation: "installation",
  installationRepositories: "installation_repositories",
} as const;
