// The GraphQL documents the adapter sends to Linear through @linear/sdk's client, and the zod shape of each answer's
// `data`. Field names are Linear's public schema (Issue, IssueFilter, issueUpdate, attachmentLinkURL, commentCreate,
// viewer); the search filter is typed by the SDK's IssueFilter (a type only: nothing of the SDK loads with it).
import type { LinearDocument } from "@linear/sdk";
import { z } from "zod";
import { LINEAR_CLOSED_STATE_TYPES, LINEAR_OPERATIONS } from "./wire.js";

const ISSUE_FIELDS = "id identifier title description url state { type } assignee { id }";

export const LinearIssue = z.object({
  id: z.string(),
  identifier: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable().optional(),
  url: z.string(),
  state: z.object({ type: z.string() }),
  assignee: z.object({ id: z.string() }).nullable(),
});
export type LinearIssue = z.infer<typeof LinearIssue>;

export const VIEWER = {
  operationName: LINEAR_OPERATIONS.viewer,
  query: `query ${LINEAR_OPERATIONS.viewer} { viewer { id name organization { id name } } }`,
  data: z.object({
    viewer: z.object({
      id: z.string(),
      name: z.string(),
      organization: z.object({ id: z.string(), name: z.string() }),
    }),
  }),
};
export type LinearViewer = z.infer<typeof VIEWER.data>["viewer"];

export const SEARCH_ISSUES = {
  operationName: LINEAR_OPERATIONS.searchIssues,
  query: `query ${LINEAR_OPERATIONS.searchIssues}($filter: IssueFilter, $first: Int) {
  issues(filter: $filter, first: $first) { nodes { ${ISSUE_FIELDS} } }
}`,
  data: z.object({ issues: z.object({ nodes: z.array(LinearIssue) }) }),
};

/** Open (not completed or canceled), assigned to `identity` or to no one, the title containing `q` in any case. */
export function searchFilter(identity: string, q: string | null): LinearDocument.IssueFilter {
  return {
    state: { type: { nin: [...LINEAR_CLOSED_STATE_TYPES] } },
    or: [{ assignee: { id: { eq: identity } } }, { assignee: { null: true } }],
    ...(q ? { title: { containsIgnoreCase: q } } : {}),
  };
}

export const FIND_ISSUE = {
  operationName: LINEAR_OPERATIONS.findIssue,
  // `issue(id:)` takes the issue's id or its identifier (ENG-12).
  query: `query ${LINEAR_OPERATIONS.findIssue}($id: String!) { issue(id: $id) { ${ISSUE_FIELDS} } }`,
  data: z.object({ issue: LinearIssue.nullable() }),
};

const Success = z.object({ success: z.boolean() });

export const ASSIGN_ISSUE = {
  operationName: LINEAR_OPERATIONS.assignIssue,
  query: `mutation ${LINEAR_OPERATIONS.assignIssue}($id: String!, $assigneeId: String!) {
  issueUpdate(id: $id, input: { assigneeId: $assigneeId }) { success }
}`,
  data: z.object({ issueUpdate: Success }),
};

export const LINK_TASK = {
  operationName: LINEAR_OPERATIONS.linkTask,
  query: `mutation ${LINEAR_OPERATIONS.linkTask}($issueId: String!, $url: String!, $title: String) {
  attachmentLinkURL(issueId: $issueId, url: $url, title: $title) { success }
}`,
  data: z.object({ attachmentLinkURL: Success }),
};

export const CREATE_COMMENT = {
  operationName: LINEAR_OPERATIONS.createComment,
  query: `mutation ${LINEAR_OPERATIONS.createComment}($issueId: String!, $body: String!) {
  commentCreate(input: { issueId: $issueId, body: $body }) { success comment { id } }
}`,
  data: z.object({ commentCreate: Success }),
};
