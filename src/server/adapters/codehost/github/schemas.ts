// The parts of GitHub's REST answers the adapter reads, checked with zod at the boundary (Octokit's types say
// what GitHub documents; these check what came) (unknown keys pass:
// GitHub adds fields freely). Field names are GitHub's.
import { z } from "zod";

export const InstallationSchema = z.object({
  id: z.number(),
  account: z.object({ login: z.string() }).nullable(),
});

export const InstallationReposSchema = z.object({
  repositories: z.array(z.object({ full_name: z.string() })),
});

export const RepoSchema = z.object({ default_branch: z.string() });

export const PullSchema = z.object({
  number: z.number(),
  /** GraphQL's id of the pull request: draft state changes only through GraphQL mutations. */
  node_id: z.string().optional(),
  draft: z.boolean().optional(),
  html_url: z.string(),
  merged: z.boolean().optional(),
  merged_at: z.string().nullable().optional(),
});
export const PullListSchema = z.array(PullSchema);

export const IssueSchema = z.object({
  id: z.number(),
  number: z.number(),
  title: z.string().nullable(),
  body: z.string().nullable().optional(),
  state: z.enum(["open", "closed"]),
  html_url: z.string(),
  assignee: z.object({ login: z.string() }).nullable().optional(),
  /** Present only on pull requests (which are issues to the issues API). */
  pull_request: z.unknown().optional(),
  repository_url: z.string().optional(),
});
export type GithubIssue = z.infer<typeof IssueSchema>;

export const SearchIssuesSchema = z.object({ items: z.array(IssueSchema) });

export const ValidationErrorSchema = z.object({
  message: z.string().optional(),
  errors: z.array(z.object({ message: z.string().optional(), field: z.string().optional() })).optional(),
});

/** A GraphQL answer: 200 even when the mutation failed, with `errors` saying why. */
export const GraphqlAnswerSchema = z.object({
  errors: z.array(z.object({ message: z.string().optional() })).optional(),
});
