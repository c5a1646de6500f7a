// The task page's body (pure): the task's facts, its conversation (or, for an issue's task, where it is kept), a
// follow-up box and Stop, then what the agent did in each turn (render-activity.ts), apart from the conversation. The conversation carries its polling address and last entry for the dashboard script;
// without the script, a reload shows the same.
import type { ApiMessage, ApiTask } from "../../../domain/tasks/views.js";
import { type Html, html, nothing } from "../html.js";
import { CSRF_FIELD } from "../wire.js";
import type { QueuePlace } from "./queue.js";
import { type ActivityView, renderActivity } from "./render-activity.js";
import { renderEntries } from "./render-entries.js";
import { renderStatus } from "./render-status.js";
import { SOURCE_WORDS } from "./render-task-list.js";
import { renderTime } from "./time.js";
import { taskEntriesBeforePath, taskMessagesPath, taskPath, taskStopPath, taskUpdatesPath } from "./wire.js";

/** The form fields of the task pages (one place: renderers and routes agree). */
export const TASK_FORM_FIELDS = {
  prompt: "prompt",
  title: "title",
  repo: "repo",
  text: "text",
  /** The idempotency key the page generated: sending the form twice sends once. */
  key: "key",
} as const;

export interface TaskPageView {
  workspaceId: string;
  task: ApiTask;
  place: QueuePlace | undefined;
  /** The agent's latest entry is a question: the status says the task waits for an answer. */
  awaitingAnswer?: boolean | undefined;
  /**
   * The conversation's latest entries (or, with `before`, those before that entry), `earlier` the cursor of the
   * entries before them; or why the API keeps the conversation elsewhere (an issue's task).
   */
  conversation:
    | { entries: readonly ApiMessage[]; earlier: string | null; before: string | null }
    | { elsewhere: string };
  /** What the agent did, per turn (the latest turns). */
  activity: ActivityView;
  csrfToken: string;
  /** A fresh idempotency key for the follow-up form (or the one of a refused send, kept with its text). */
  followUpKey: string;
  followUpText?: string | undefined;
  /** A refusal's reason as written, or a notice of what happened. */
  error?: string | undefined;
  notice?: string | undefined;
}

export const canStop = (task: ApiTask): boolean =>
  task.status === "pending" || task.status === "implementing";

export function renderTaskPage(view: TaskPageView): Html {
  return html`${view.notice ? html`<p class="notice" role="status">${view.notice}</p>` : nothing}
${view.error ? html`<p class="error" role="alert">${view.error}</p>` : nothing}
${renderFacts(view)}
<div id="task-actions">${renderStop(view)}</div>
<section aria-labelledby="conversation-heading">
<h2 id="conversation-heading">Conversation</h2>
${renderConversation(view)}
</section>
${"entries" in view.conversation ? renderFollowUp(view) : nothing}
${renderActivity(view.activity)}`;
}

function renderFacts(view: TaskPageView): Html {
  const { task } = view;
  return html`<dl class="facts">
<dt>Status</dt><dd id="task-status">${renderStatus(task, view.place, view.awaitingAnswer)}</dd>
<dt>Repository</dt><dd>${task.repo ?? "The agent's choice"}</dd>
<dt>Pull request</dt><dd id="task-pr">${renderPullRequest(task)}</dd>
<dt>From</dt><dd>${SOURCE_WORDS[task.source]}</dd>
<dt>Started</dt><dd>${renderTime(task.createdAt)}</dd>
<dt>Last active</dt><dd id="task-activity">${renderTime(task.lastActivityAt)}</dd>
</dl>`;
}

export function renderPullRequest(task: ApiTask): Html {
  if (!task.pullRequest) return html`None yet`;
  const { url, merged } = task.pullRequest;
  return html`<a href="${url}">${url}</a> <span class="badge${merged ? " merged" : ""}">${merged ? "Merged" : "Not merged"}</span>`;
}

/** Stop, for a turn that runs or waits in the queue; shown again or hidden by polling as the status moves. */
export function renderStop(view: Pick<TaskPageView, "workspaceId" | "task" | "csrfToken">): Html {
  if (!canStop(view.task)) return nothing;
  return html`<form method="post" action="${taskStopPath(view.workspaceId, view.task.id)}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrfToken}">
<button type="submit" class="danger">Stop this turn</button>
</form>`;
}

function renderConversation(view: TaskPageView): Html {
  if ("elsewhere" in view.conversation)
    return html`<p class="notice">${view.conversation.elsewhere}. Read and reply on the issue; this page shows the task's status and pull request.</p>`;
  const { entries, earlier, before } = view.conversation;
  const earlierLink = earlier
    ? html`<p class="hint" id="earlier-entries"><a href="${taskEntriesBeforePath(view.workspaceId, view.task.id, earlier)}" rel="prev">Earlier entries</a></p>`
    : nothing;
  // An earlier window is a page of the past: it is not polled (new entries belong after the latest, not here).
  if (before !== null)
    return html`${earlierLink}
<ol class="conversation" id="conversation">
${renderEntries(entries)}
</ol>
<p class="hint" id="later-entries">Earlier entries of the conversation. <a href="${taskPath(view.workspaceId, view.task.id)}#conversation-heading">Latest entries</a></p>`;
  const last = entries.at(-1)?.id ?? "";
  return html`${earlierLink}
<ol class="conversation" id="conversation" aria-live="polite" data-updates="${taskUpdatesPath(view.workspaceId, view.task.id)}" data-last="${last}">
${renderEntries(entries)}
</ol>
${entries.length === 0 ? html`<p class="hint" id="no-entries">No entries yet.</p>` : nothing}
<p class="hint">New entries appear here every few seconds; without JavaScript, reload the page.</p>`;
}

function renderFollowUp(view: TaskPageView): Html {
  const F = TASK_FORM_FIELDS;
  return html`<section aria-labelledby="follow-up-heading">
<h2 id="follow-up-heading">Follow up</h2>
<form method="post" action="${taskMessagesPath(view.workspaceId, view.task.id)}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrfToken}">
<input type="hidden" name="${F.key}" value="${view.followUpKey}">
<label for="follow-up">Your message to the agent</label>
<textarea id="follow-up" name="${F.text}" required rows="4">${view.followUpText ?? ""}</textarea>
<button type="submit" class="primary">Send</button>
</form>
</section>`;
}
