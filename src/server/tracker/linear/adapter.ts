// The tracker port over Linear's GraphQL API. Searches and finds read as the member (their own OAuth token, kept
// sealed when they linked their identity), so they see what Linear lets them see; a claim assigns the issue to
// them and links the task; the agent's replies are posted with the workspace's own token (the app's actor).
import type { Logger } from "pino";
import type { TrackerOAuthSettings } from "../../integrations/settings.js";
import type { SecretBox } from "../../secrets/secret-box.js";
import type { Database } from "../../store/sqlite.js";
import {
  openConnectionTokens,
  openMemberTokensByIdentity,
  storeConnectionTokens,
  storeMemberTokens,
} from "../connections.js";
import type { Tracker, TrackerIssue } from "../port.js";
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
import { createTokenKeeper } from "./tokens.js";
import { LINEAR_CLOSED_STATE_TYPES, LINEAR_NOT_FOUND_PREFIX, LINEAR_STARTED_STATE_TYPE } from "./wire.js";

export interface LinearTrackerOptions {
  db: Database;
  box: SecretBox;
  settings: TrackerOAuthSettings;
  logger: Logger;
  now: () => Date;
  /** The task's page, linked from the issue on a claim. */
  taskUrl: (workspaceId: string, taskId: string) => string;
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
    fetch: doFetch,
    now,
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  const accessTokenOf = createTokenKeeper({
    now,
    refresh: (refreshToken) => refreshTokens({ settings, fetch: doFetch, now }, refreshToken),
  });

  const memberToken = async (workspaceId: string, identity: string): Promise<string> => {
    const found = openMemberTokensByIdentity(db, box, workspaceId, identity);
    if (!found)
      throw new TrackerApiError(
        `no tracker token for identity ${identity} in workspace ${workspaceId}; the member links their identity again at /install/tracker?workspace=${workspaceId}`,
        { code: "not_configured" },
      );
    return accessTokenOf(`member/${workspaceId}/${found.userId}`, found.tokens, (fresh) =>
      storeMemberTokens(db, box, workspaceId, found.userId, fresh),
    );
  };
  const workspaceToken = async (workspaceId: string): Promise<string> => {
    const tokens = openConnectionTokens(db, box, workspaceId);
    if (!tokens)
      throw new TrackerApiError(
        `workspace ${workspaceId} holds no tracker token; an owner or admin connects it at /install/tracker?workspace=${workspaceId}`,
        { code: "not_configured" },
      );
    return accessTokenOf(`workspace/${workspaceId}`, tokens, (fresh) =>
      storeConnectionTokens(db, box, workspaceId, fresh),
    );
  };
  const findAs = async (token: string, idOrIdentifier: string): Promise<LinearIssue | undefined> => {
    try {
      return (await graphql(token, { ...FIND_ISSUE, variables: { id: idOrIdentifier } })).issue ?? undefined;
    } catch (error) {
      if (error instanceof TrackerApiError && error.message.includes(LINEAR_NOT_FOUND_PREFIX))
        return undefined;
      throw error;
    }
  };

  return {
    kind: LINEAR_TRACKER_KIND,
    async searchIssues({ workspaceId, identity, q, limit }) {
      const token = await memberToken(workspaceId, identity);
      const data = await graphql(token, {
        ...SEARCH_ISSUES,
        variables: { filter: searchFilter(identity, q), first: limit },
      });
      return data.issues.nodes.map(toTrackerIssue);
    },
    async findIssue({ workspaceId, identity, idOrIdentifier }) {
      const issue = await findAs(await memberToken(workspaceId, identity), idOrIdentifier);
      return issue && toTrackerIssue(issue);
    },
    async claimIssue({ workspaceId, issueId, identity, taskId }) {
      const token = await memberToken(workspaceId, identity);
      const issue = await findAs(token, issueId);
      if (!issue)
        throw new TrackerApiError(`the tracker has no issue ${issueId} to claim`, { code: "not_found" });
      if (!issue.assignee)
        await graphql(token, { ...ASSIGN_ISSUE, variables: { id: issue.id, assigneeId: identity } });
      const url = options.taskUrl(workspaceId, taskId);
      try {
        await graphql(token, {
          ...LINK_TASK,
          variables: { issueId: issue.id, url, title: `Baton task ${taskId}` },
        });
      } catch (error) {
        // An organisation may disallow link attachments; a comment carries the same link.
        options.logger.warn(
          { workspaceId, issueId: issue.id, err: error instanceof Error ? error.message : String(error) },
          "tracker: linking the task as an attachment failed; linking it in a comment",
        );
        await graphql(token, {
          ...CREATE_COMMENT,
          variables: { issueId: issue.id, body: `Baton is working on this: ${url}` },
        });
      }
    },
    async postComment({ workspaceId, issueId, body }) {
      const token = await workspaceToken(workspaceId);
      await graphql(token, { ...CREATE_COMMENT, variables: { issueId, body } });
    },
  };
}
