// The start-a-task form (pure): prompt, optional title, a repository of the workspace's connected ones or the
// agent's choice, and the idempotency key that makes a double submit start one task. A refused form comes back
// with what was typed and the refusal's reason as written, with where to go when the reason names a page.
import { type Html, html, nothing } from "../html.js";
import { CSRF_FIELD } from "../wire.js";
import { TASK_FORM_FIELDS as F } from "./render-task-page.js";
import { tasksPath } from "./wire.js";

export interface NewTaskView {
  workspaceId: string;
  csrfToken: string;
  repos: readonly string[];
  key: string;
  prompt?: string | undefined;
  title?: string | undefined;
  repo?: string | undefined;
  refusal?: { reason: string; next?: { href: string; label: string } | undefined } | undefined;
}

export function renderNewTask(view: NewTaskView): Html {
  const chosen = view.repo ?? "";
  const options = view.repos.map(
    (repo) => html`<option value="${repo}"${repo === chosen ? html` selected` : nothing}>${repo}</option>`,
  );
  return html`${renderRefusal(view.refusal)}
<form method="post" action="${tasksPath(view.workspaceId)}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrfToken}">
<input type="hidden" name="${F.key}" value="${view.key}">
<label for="prompt">What should the agent do?</label>
<textarea id="prompt" name="${F.prompt}" required rows="8">${view.prompt ?? ""}</textarea>
<label for="title">Title <span class="hint">(optional; the prompt's first line otherwise)</span></label>
<input type="text" id="title" name="${F.title}" maxlength="200" value="${view.title ?? ""}">
<label for="repo">Repository</label>
<select id="repo" name="${F.repo}">
<option value=""${chosen === "" ? html` selected` : nothing}>Let the agent choose</option>
${options}
</select>
${view.repos.length === 0 ? html`<p class="hint">No repository is connected to this workspace yet; an owner connects them in Settings.</p>` : nothing}
<button type="submit" class="primary">Start the task</button>
</form>`;
}

function renderRefusal(refusal: NewTaskView["refusal"]): Html {
  if (!refusal) return nothing;
  const next = refusal.next ? html` <a href="${refusal.next.href}">${refusal.next.label}</a>` : nothing;
  return html`<div class="error" role="alert"><p>The task was not started: ${refusal.reason}.${next}</p><p>What you typed is kept below.</p></div>`;
}
