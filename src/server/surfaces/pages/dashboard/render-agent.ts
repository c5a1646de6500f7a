// The settings page's Agent section (pure): which coding agent runs the workspace's tasks (its choice, or the
// service's default), and for owners and admins a form to change it. A change applies from each task's next turn.
import type { WorkspaceAgent } from "../../../domain/agent/index.js";
import { type Html, html, nothing } from "../html.js";
import { CSRF_FIELD } from "../wire.js";
import { AGENT_FIELD } from "./agent-form.js";
import { agentSettingsPath } from "./wire.js";

export interface AgentSectionView {
  ws: string;
  csrfToken: string;
  canAdminister: boolean;
  agent: WorkspaceAgent;
  /** Just changed (the redirect's notice). */
  saved?: boolean;
  /** A refused change, its reason as the domain wrote it. */
  refusal?: string | undefined;
}

const NEXT_TURN =
  "A turn running now finishes with the agent it started with; each task's next turn uses the choice.";

export function renderAgentSection(view: AgentSectionView): Html {
  const { chosen, choices } = view.agent;
  const current =
    chosen === null
      ? html`<p>This workspace's tasks run with the service default: <strong>${choices.serviceDefault}</strong>.</p>`
      : html`<p>This workspace's tasks run with <strong>${chosen.name}</strong>. The service default is ${choices.serviceDefault}.</p>${
          chosen.runnable
            ? nothing
            : html`<p class="error">${chosen.name} is not one this service can run now: its turns fail until an owner or admin picks another agent.</p>`
        }`;
  return html`<section aria-labelledby="agent"><h2 id="agent">Agent</h2>
${view.saved ? html`<p class="notice" role="status">The agent is saved. ${NEXT_TURN}</p>` : nothing}${
  view.refusal
    ? html`<div class="error" role="alert"><p>The agent was not changed: ${view.refusal}</p></div>`
    : nothing
}${current}
${view.canAdminister ? renderForm(view) : html`<p class="hint">Only an owner or admin of the workspace chooses its agent; ask one of them.</p>`}
</section>`;
}

function renderForm(view: AgentSectionView): Html {
  const { chosen, choices } = view.agent;
  const selected = chosen?.id ?? "";
  const option = (value: string, label: string) =>
    html`<option value="${value}"${value === selected ? html` selected` : nothing}>${label}</option>`;
  // A choice the service can no longer run stays listed, so the page shows it as it is stored.
  const stale = chosen && !chosen.runnable ? option(chosen.id, `${chosen.name} (not available)`) : nothing;
  return html`<form method="post" action="${agentSettingsPath(view.ws)}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrfToken}">
<label for="agent-choice">Coding agent</label>
<select id="agent-choice" name="${AGENT_FIELD}" aria-describedby="agent-hint">
${option("", `The service default (${choices.serviceDefault})`)}
${choices.installed.map((agent) => option(agent.id, agent.name))}${stale}
</select>
<p class="hint" id="agent-hint">${NEXT_TURN}${
    choices.installed.length === 0
      ? html` This service offers no other agent: ${choices.sandboxes ? "its sandbox image holds none" : "other agents run in sandboxes, and it runs tasks without them"}.`
      : nothing
  }</p>
<button type="submit" class="primary">Save the agent</button>
</form>`;
}
