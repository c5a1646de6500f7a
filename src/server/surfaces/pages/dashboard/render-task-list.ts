// The task list's body (pure): a status filter (a GET form, so it works without the script), the tasks of every
// source most recently active first, and paging with the API's cursor.
import { TASK_STATUSES, type TaskSource, type TaskStatus } from "../../../domain/tasks/statuses.js";
import type { ApiTask } from "../../../domain/tasks/views.js";
import { type Html, html, nothing } from "../html.js";
import type { QueuePlace } from "./queue.js";
import { renderStatus, STATUS_WORDS } from "./render-status.js";
import { renderTime } from "./time.js";
import { newTaskPath, taskPath, tasksPath } from "./wire.js";

export const SOURCE_WORDS: Record<TaskSource, string> = {
  api: "Dashboard, client or API",
  tracker: "Tracker issue",
  codehost_issue: "Code-host issue",
};

export interface TaskListView {
  workspaceId: string;
  tasks: readonly ApiTask[];
  places: ReadonlyMap<string, QueuePlace>;
  /** The tasks whose agent's latest entry is a question (their status says they wait for an answer). */
  awaitingAnswer?: ReadonlySet<string> | undefined;
  status: TaskStatus | null;
  /** The cursor of the next page, null on the last. */
  nextCursor: string | null;
  /** Whether this page was reached with a cursor (offers a way back to the first). */
  paged: boolean;
}

export function renderTaskList(view: TaskListView): Html {
  const ws = view.workspaceId;
  return html`<form method="get" action="${tasksPath(ws)}" class="filter">
<label for="status">Status</label>
<select id="status" name="status">
<option value=""${view.status === null ? html` selected` : nothing}>Every status</option>
${TASK_STATUSES.map((s) => html`<option value="${s}"${s === view.status ? html` selected` : nothing}>${STATUS_WORDS[s]}</option>`)}
</select>
<button type="submit">Show</button>
</form>
${view.tasks.length === 0 ? renderEmpty(ws, view.status) : renderTable(view)}
${renderPager(view)}`;
}

function renderEmpty(ws: string, status: TaskStatus | null): Html {
  return status
    ? html`<p>No task is ${STATUS_WORDS[status].toLowerCase()}. <a href="${tasksPath(ws)}">Show every task</a>.</p>`
    : html`<p>No task yet. <a href="${newTaskPath(ws)}">Start a task</a>.</p>`;
}

function renderTable(view: TaskListView): Html {
  const rows = view.tasks.map(
    (task) => html`<tr>
<td data-label="Task"><a href="${taskPath(view.workspaceId, task.id)}">${task.title ?? task.id}</a></td>
<td data-label="Status">${renderStatus(task, view.places.get(task.id), view.awaitingAnswer?.has(task.id))}</td>
<td data-label="Repository">${task.repo ?? "Agent's choice"}</td>
<td data-label="From">${SOURCE_WORDS[task.source]}</td>
<td data-label="Last active">${renderTime(task.lastActivityAt)}</td>
</tr>`,
  );
  return html`<table class="tasks">
<caption class="vh">Tasks, most recently active first</caption>
<thead><tr><th scope="col">Task</th><th scope="col">Status</th><th scope="col">Repository</th><th scope="col">From</th><th scope="col">Last active</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

/** The list's own query: the status filter and the API's cursor (`after`). */
export function taskListHref(ws: string, status: TaskStatus | null, after: string | null): string {
  const query = new URLSearchParams();
  if (status) query.set("status", status);
  if (after) query.set("after", after);
  const text = query.toString();
  return text ? `${tasksPath(ws)}?${text}` : tasksPath(ws);
}

function renderPager(view: TaskListView): Html {
  if (!view.nextCursor && !view.paged) return nothing;
  const first = view.paged
    ? html`<a href="${taskListHref(view.workspaceId, view.status, null)}">First page</a>`
    : nothing;
  const next = view.nextCursor
    ? html`<a href="${taskListHref(view.workspaceId, view.status, view.nextCursor)}" rel="next">Older tasks</a>`
    : nothing;
  return html`<nav class="pager" aria-label="Pages">${first}${next}</nav>`;
}
