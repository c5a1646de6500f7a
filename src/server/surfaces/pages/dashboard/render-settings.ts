// The settings page's body (pure): the code host (installations, repositories with their capability requests),
// the tracker, the workspace's coding agent, and the member's own linked accounts, with the install and link flows
// and the agent's form for who may use them.
import type { WorkspaceAgent } from "../../../domain/agent/index.js";
import { renderWhen } from "../format.js";
import { type Html, html, nothing } from "../html.js";
import { codehostInstallHref, trackerLinkHref } from "./refusals.js";
import { renderAgentSection } from "./render-agent.js";
import type { WorkspaceConnections } from "./settings-store.js";
import { billingPath, capabilityRequestsPath } from "./wire.js";

export interface SettingsView {
  ws: string;
  csrfToken: string;
  canAdminister: boolean;
  connections: WorkspaceConnections;
  agent: WorkspaceAgent;
  /** The agent was just changed (the redirect's notice). */
  agentSaved?: boolean;
  /** A refused change of the agent, its reason as the domain wrote it. */
  agentRefusal?: string | undefined;
}

const ADMINS_ONLY = html`<p class="hint">Only an owner or admin of the workspace connects it; ask one of them.</p>`;

export function renderSettings(view: SettingsView): Html {
  const agent = renderAgentSection({
    ws: view.ws,
    csrfToken: view.csrfToken,
    canAdminister: view.canAdminister,
    agent: view.agent,
    saved: view.agentSaved ?? false,
    refusal: view.agentRefusal,
  });
  return html`${renderCodehost(view)}${renderTracker(view)}${agent}${renderMine(view)}
<p><a href="${billingPath(view.ws)}">Plan and billing</a></p>`;
}

function renderCodehost({ ws, canAdminister, connections }: SettingsView): Html {
  const installations =
    connections.installations.length === 0
      ? html`<p>No code-host installation belongs to this workspace.</p>`
      : html`<ul>${connections.installations.map(
          (one) =>
            html`<li>${one.accountLogin}: ${one.suspended ? "suspended (re-enable it on the code host)" : "active"}, since ${renderWhen(one.createdAt)}</li>`,
        )}</ul>`;
  const repositories =
    connections.repositories.length === 0
      ? html`<p>No repositories yet.</p>`
      : html`<table><thead><tr><th scope="col">Repository</th><th scope="col">Enabled</th><th scope="col"><span class="vh">Link</span></th></tr></thead><tbody>${connections.repositories.map(
          (repo) =>
            html`<tr><td data-label="Repository">${repo.slug}</td><td data-label="Enabled">${repo.enabled ? "yes" : "no"}</td><td><a href="${capabilityRequestsPath(ws, repo.id)}">Capability requests<span class="vh"> of ${repo.slug}</span></a></td></tr>`,
        )}</tbody></table>`;
  return html`<section aria-labelledby="codehost"><h2 id="codehost">Code host</h2>
<p>${connections.codehostConnected ? "The code host is connected." : "The code host is not connected: tasks cannot start and code-host issues are not shown."}</p>
${canAdminister ? html`<p><a href="${codehostInstallHref(ws)}">${connections.codehostConnected ? "Add repositories or another code-host account" : "Connect the code host"}</a></p>` : ADMINS_ONLY}
<h3>Installations</h3>${installations}
<h3>Repositories</h3>${repositories}
</section>`;
}

function renderTracker({ ws, canAdminister, connections }: SettingsView): Html {
  const state = connections.trackerConnected
    ? html`<p>The tracker is connected${connections.trackerOrganization ? html` (${connections.trackerOrganization})` : nothing}.</p>`
    : html`<p>The tracker is not connected: tracker issues cannot be delegated.</p>`;
  return html`<section aria-labelledby="tracker"><h2 id="tracker">Tracker</h2>${state}
${connections.trackerConnected ? nothing : canAdminister ? html`<p><a href="${trackerLinkHref(ws)}">Connect the tracker</a></p>` : ADMINS_ONLY}
</section>`;
}

function renderMine({ ws, connections }: SettingsView): Html {
  const { mine } = connections;
  const tracker =
    mine.trackerIdentity === null
      ? html`Not linked: tracker issues are not shown to you and you cannot delegate them.`
      : mine.trackerBound
        ? html`Linked as ${mine.trackerIdentity}.`
        : html`Linked as ${mine.trackerIdentity}, but to another tracker than this workspace's: link it again.`;
  return html`<section aria-labelledby="mine"><h2 id="mine">Your accounts</h2>
<ul>
<li>Code host: ${mine.codehostLogin === null ? "no account is known for you; code-host issues are not shown to you." : html`${mine.codehostLogin}.`}</li>
<li>Tracker: ${tracker}</li>
</ul>
<p><a href="${trackerLinkHref(ws)}">Link your tracker account</a></p>
</section>`;
}
