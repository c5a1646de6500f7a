// "What the agent did" on the task page (pure): one <details> per turn (the latest open), works without script.
// A tool call is told apart by words, never by colour alone: its kind as a badge, its title, its status; plan
// entries are listed with their status; the agent's messages are rendered as Markdown (markdown.ts).
import type { ApiActivityTurn } from "../../../domain/tasks/views.js";
import { type Html, html, nothing } from "../html.js";
import { renderMarkdown } from "../markdown.js";
import { type ActivityItem, type ToolItem, toActivityItems } from "./activity-view.js";
import { renderTime } from "./time.js";

export interface ActivityView {
  /** The latest turns with activity, oldest first. */
  turns: readonly ApiActivityTurn[];
  /** Earlier turns with activity not shown here (the API returns them). */
  earlier: number;
}

const TOOL_KINDS: Record<string, string> = {
  read: "Read",
  edit: "Edit",
  delete: "Delete",
  move: "Move",
  search: "Search",
  execute: "Run",
  think: "Think",
  fetch: "Fetch",
  switch_mode: "Mode",
};
const STATUSES: Record<string, string> = {
  pending: "Pending",
  in_progress: "In progress",
  completed: "Completed",
  failed: "Failed",
  cancelled: "Cancelled",
};
const TURN_STATES: Record<string, string> = {
  succeeded: "ended with a reply",
  failed: "failed",
  cancelled: "stopped",
  paused: "paused",
  running: "running",
};
const MESSAGE_LABELS = { agent: "Agent said", thought: "Agent thought", user: "Message replayed" } as const;

const words = (table: Record<string, string>, value: string, otherwise: string) =>
  table[value] ?? (value === "" ? otherwise : value);

export function renderActivity(view: ActivityView): Html {
  const last = view.turns.at(-1)?.turnId;
  return html`<section aria-labelledby="activity-heading">
<h2 id="activity-heading">What the agent did</h2>
<p class="hint">Recorded by the agent as each turn ends, kept apart from the conversation. Reload the page to see a turn that just ended.</p>
${view.earlier > 0 ? html`<p class="hint">${view.earlier} earlier ${view.earlier === 1 ? "turn is" : "turns are"} not shown here; the API's activity route returns every turn.</p>` : nothing}
${view.turns.length === 0 ? html`<p class="hint" id="no-activity">Nothing recorded yet.</p>` : nothing}
${view.turns.map((turn) => renderTurn(turn, turn.turnId === last))}
</section>`;
}

function renderTurn(turn: ApiActivityTurn, open: boolean): Html {
  const items = toActivityItems(turn.records);
  const count = turn.records.length - (turn.dropped > 0 ? 1 : 0);
  return html`<details class="turn-activity" id="activity-${turn.turnId}"${open ? html` open` : nothing}>
<summary>Turn ${turn.number}, ${words(TURN_STATES, turn.state, turn.state)} · ${count} ${count === 1 ? "record" : "records"} · ${renderTime(turn.recordedAt)}</summary>
<ol class="activity">
${items.map(renderItem)}
</ol>
</details>`;
}

function renderItem(item: ActivityItem): Html {
  switch (item.type) {
    case "tool":
      return renderTool(item);
    case "plan":
      return html`<li class="plan"><p class="label">Plan</p>
<ol class="plan-entries">${item.entries.map(
        (entry) =>
          html`<li><span class="badge">${words(STATUSES, entry.status, "Pending")}</span> ${entry.content}${entry.priority ? html` <span class="hint">(${entry.priority} priority)</span>` : nothing}</li>`,
      )}</ol></li>`;
    case "message":
      return html`<li class="message ${item.who}"><p class="label">${MESSAGE_LABELS[item.who]}</p>
<div class="markdown">${renderMarkdown(item.text)}</div></li>`;
    case "permission":
      return html`<li class="permission"><span class="badge">Permission</span> ${item.title || "a tool call"}: <span class="status">${item.outcome || "answered"}</span></li>`;
    case "baton_tool":
      return html`<li class="baton-tool"><span class="badge">Baton tool</span> <span class="tool-title">${item.tool || "skipped requests"}</span>${item.detail ? html`: ${item.detail}` : nothing}</li>`;
    case "dropped":
      return html`<li class="dropped"><span class="badge">Dropped</span> ${item.records} earlier ${item.records === 1 ? "record was" : "records were"} dropped to keep the turn within its 4 MiB.</li>`;
    case "other":
      return html`<li class="other"><span class="badge">${item.kind}</span>${item.detail ? html` ${item.detail}` : nothing}</li>`;
  }
}

function renderTool(tool: ToolItem): Html {
  return html`<li class="tool"><span class="badge">${words(TOOL_KINDS, tool.kind, "Tool")}</span> <span class="tool-title">${tool.title || "Untitled tool call"}</span> · <span class="status ${tool.status in STATUSES ? tool.status : "other"}">${words(STATUSES, tool.status, "No status")}</span>${
    tool.paths.length > 0 ? html` · <span class="paths">${tool.paths.join(", ")}</span>` : nothing
  }</li>`;
}
