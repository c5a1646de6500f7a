// The dashboard's paths (issue 25), under PAGES_BASE_PATH, as a browser sees them. A Task's `url` is
// `taskPath(workspaceId, taskId)` on the dashboard base (domain/tasks/views.ts builds it from the same shape); the
// capability-request e-mails link to `capabilityRequestPath` (domain/capability/render-email.ts). Every builder encodes
// its ids.
import { PAGES_BASE_PATH } from "../wire.js";

const enc = encodeURIComponent;

export const DASHBOARD_HOME = PAGES_BASE_PATH;
export const WORKSPACES_BASE = `${PAGES_BASE_PATH}/workspaces`;

export const workspacePath = (ws: string): string => `${WORKSPACES_BASE}/${enc(ws)}`;
/** GET: the task list (`?status=`, `?after=`); POST: start a task (the new-task form posts here). */
export const tasksPath = (ws: string): string => `${workspacePath(ws)}/tasks`;
export const newTaskPath = (ws: string): string => `${tasksPath(ws)}/new`;
/** GET: the task's page (the Task's `url`). */
export const taskPath = (ws: string, task: string): string => `${tasksPath(ws)}/${enc(task)}`;
/**
 * GET: the task's page showing the entries just before the entry `before` (the task page shows the latest ones;
 * an entry's id is the cursor, as in GET .../messages?after=), at the conversation's heading.
 */
export const taskEntriesBeforePath = (ws: string, task: string, before: string): string =>
  `${taskPath(ws, task)}?before=${enc(before)}#conversation-heading`;
/** POST: a follow-up from the task page. */
export const taskMessagesPath = (ws: string, task: string): string => `${taskPath(ws, task)}/messages`;
/** POST: stop the running or queued turn. */
export const taskStopPath = (ws: string, task: string): string => `${taskPath(ws, task)}/stop`;
/** GET: the entries after `?after=` and the task's state, for the page's 3 s polling (same session cookie). */
export const taskUpdatesPath = (ws: string, task: string): string => `${taskPath(ws, task)}/updates`;
/** GET: the ticket picker (`?q=`, `?repo=`). */
export const ticketsPath = (ws: string): string => `${workspacePath(ws)}/tickets`;
/** POST: delegate one ticket. */
export const delegatePath = (ws: string): string => `${ticketsPath(ws)}/delegate`;
/** GET: the workspace's connections (code host, tracker: install and link) and repositories. */
export const settingsPath = (ws: string): string => `${workspacePath(ws)}/settings`;
/** POST: choose the workspace's coding agent (owners and admins); GET sends the browser to the settings page. */
export const agentSettingsPath = (ws: string): string => `${settingsPath(ws)}/agent`;
/** GET: the plan and billing state (the target of `billingUrl` in a 402 refusal). */
export const billingPath = (ws: string): string => `${workspacePath(ws)}/billing`;
/** GET: a repository's capability requests. */
export const capabilityRequestsPath = (ws: string, repo: string): string =>
  `${workspacePath(ws)}/repos/${enc(repo)}/capability-requests`;
/** GET: one request (the e-mails' link); POST `/dismiss`, POST `/secret` (supply a secret with approved hosts). */
export const capabilityRequestPath = (ws: string, repo: string, request: string): string =>
  `${capabilityRequestsPath(ws, repo)}/${enc(request)}`;
/** The dashboard's one script (polling), served with the pages. */
export const DASHBOARD_SCRIPT_PATH = `${PAGES_BASE_PATH}/assets/dashboard.js`;
/** POST: "Not now" on one request (owners and admins). */
export const capabilityDismissPath = (ws: string, repo: string, request: string): string =>
  `${capabilityRequestPath(ws, repo, request)}/dismiss`;
/** POST: supply a secret with its approved hosts for one request (owners and admins). */
export const capabilitySecretPath = (ws: string, repo: string, request: string): string =>
  `${capabilityRequestPath(ws, repo, request)}/secret`;
