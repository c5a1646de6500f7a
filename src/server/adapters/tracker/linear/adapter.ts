// The tracker port over Linear's GraphQL API (through @linear/sdk's client, graphql.ts). Searches and finds read as the member (their own OAuth token, kept
// sealed when they linked their identity), so they see what Linear lets them see; a claim assigns the issue to
// them and links the task; the agent's replies are posted with the workspace's own token (the app's actor).
import type { Logger } from "pino";
import type { SecretBox } from "../../../primitives/secret-box.js";
import type { Store } from "../../../store/store.js";
import type { TrackerOAuthSettings } from "../../integrations/settings.js";
import type { Tracker, TrackerIssue } from "../port.js";
import { createCredentials } from "./credentials.js";
import { TrackerApiError } from "./errors.js";
import { createGraphqlClient, type GraphqlPolicy } from "./graphql.js";
import { refreshTokens } from "./oauth.js";
import {
  ASSIGN_ISSUE,
  CREATE_COMMENT,
  FIND_ISSUE,
  LINK_TASK,
  type LinearIssue,
  SEARCH_ISSUES,
  searchFilter,
} from "./queries.js";
import { LINEAR_CLOSED_STATE_TYPES, LINEAR_NOT_FOUND_PREFIX, LINEAR_STARTED_STATE_TYPE } from "./wire.js";

export interface LinearTrackerOptions {
  db: Store;
  box: SecretBox;
  settings: TrackerOAuthSettings;
  logger: Logger;
  now: () => Date;
  /** The task's page, linked from the issue on a claim. */
  taskUrl: (workspaceId: string, taskId: string) => string;
  /** The token endpoint's fetch (OAuth stays ours: the SDK has no OAuth client). */
  fetch?: typeof fetch;
  policy?: Partial<GraphqlPolicy>;
  sleep?: (ms: number) => Promise<void>;
}

export const LINEAR_TRACKER_KIND = "linear";

export function toTrackerIssue(issue: LinearIssue): TrackerIssue {
  const closed = (LINEAR_CLOSED_STATE_TYPES as readonly string[]).includes(issue.state.type);
  return {
    id: issue.id,
    identifier: issue.identifier,
    title: issue.title || null,
    context: issue.description ?? "",
    state: closed ? "closed" : "open",
    assignee: issue.assignee?.id ?? null,
    inProgress: issue.state.type === LINEAR_STARTED_STATE_TYPE,
    url: issue.url,
  };
}

export function createLinearTracker(options: LinearTrackerOptions): Tracker {
  const { db, box, settings, now } = options;
  const doFetch = options.fetch ?? fetch;
  const graphql = createGraphqlClient({
    apiUrl: settings.apiUrl,
    now,
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  const { withToken, asMember, asWorkspace } = createCredentials({
    db,
    box,
    now,
    refresh: (refreshToken) => refreshTokens({ settings, fetch: doFetch, now }, refreshToken),
  });

  const findAs = async (token: string, idOrIdentifier: string): Promise<LinearIssue | undefined> => {
    try {
      return (await graphql(token, { ...FIND_ISSUE, variables: { id: idOrIdentifier } })).issue ?? undefined;
    } catch (error) {
      if (error instanceof TrackerApiError && error.message.includes(LINEAR_NOT_FOUND_PREFIX))
        return undefined;
      throw error;
    }
  };

  const linkTask = async (token: string, workspaceId: string, issueId: string, taskId: string) => {
    const url = options.taskUrl(workspaceId, taskId);
    try {
      await graphql(token, { ...LINK_TASK, variables: { issueId, url, title: `Baton task ${taskId}` } });
    } catch (error) {
      // An organisation may disallow link attachments; a comment carries the same link.
      options.logger.warn(
        { workspaceId, issueId, err: error instanceof Error ? error.message : String(error) },
        "tracker: linking the task as an attachment failed; linking it in a comment",
      );
      await graphql(token, {
        ...CREATE_COMMENT,
        variables: { issueId, body: `Baton is working on this: ${url}` },
      });
    }
  };

  return {
    kind: LINEAR_TRACKER_KIND,
    async searchIssues({ workspaceId, identity, q, limit }) {
      const data = await withToken(asMember(workspaceId, identity), (token) =>
        graphql(token, { ...SEARCH_ISSUES, variables: { filter: searchFilter(identity, q), first: limit } }),
      );
      return data.issues.nodes.map(toTrackerIssue);
    },
    async findIssue({ workspaceId, identity, idOrIdentifier }) {
      const issue = await withToken(asMember(workspaceId, identity), (token) =>
        findAs(token, idOrIdentifier),
      );
      return issue && toTrackerIssue(issue);
    },
    async claimIssue({ workspaceId, issueId, identity, taskId }) {
      await withToken(asMember(workspaceId, identity), async (token) => {
        const issue = await findAs(token, issueId);
        if (!issue)
          throw new TrackerApiError(`the tracker has no issue ${issueId} to claim`, { code: "not_found" });
        if (!issue.assignee)
          await graphql(token, { ...ASSIGN_ISSUE, variables: { id: issue.id, assigneeId: identity } });
        await linkTask(token, workspaceId, issue.id, taskId);
      });
    },
    async postComment({ workspaceId, issueId, body }) {
      await withToken(asWorkspace(workspaceId), (token) =>
        graphql(token, { ...CREATE_COMMENT, variables: { issueId, body } }),
      );
    },
  };
}
