// Conversation entries (pure), shared by the task page and its polling answer: who spoke is said in words (a
// label) and repeated by the entry's style, never by colour alone. Bodies are Markdown (markdown.ts): agents
// answer in it, and the code host shows the same text so.
import type { ApiMessage } from "../../../domain/tasks/views.js";
import { type Html, html } from "../html.js";
import { renderMarkdown } from "../markdown.js";
import { renderTime } from "./time.js";

/** The label of each kind of entry: a person's message is "User", the reference's role, as the API and the
 * client name it; the agent's `clarify` is a question waiting for an answer. */
export function entryLabel(entry: Pick<ApiMessage, "role" | "kind">): string {
  if (entry.role === "user") return "User";
  if (entry.role === "platform") return "Baton";
  if (entry.kind === "clarify") return "Agent asks";
  if (entry.kind === "error") return "Agent error";
  return "Agent";
}

export function renderEntry(entry: ApiMessage): Html {
  return html`<li class="${entry.role} ${entry.kind}" id="entry-${entry.id}" data-entry="${entry.id}">
<p class="meta"><span class="who">${entryLabel(entry)}</span> · ${renderTime(entry.createdAt)}</p>
<div class="body markdown">${renderMarkdown(entry.body)}</div>
</li>`;
}

export function renderEntries(entries: readonly ApiMessage[]): Html {
  return html`${entries.map(renderEntry)}`;
}
