// The billing page's body (pure, read-only): the plan's limits, the billing state, the running and queued counts,
// and what to do when billing is inactive.
import { type Html, html } from "../html.js";
import type { BillingFacts } from "./settings-store.js";
import { settingsPath, tasksPath } from "./wire.js";

export function renderBilling(ws: string, facts: BillingFacts): Html {
  const state = facts.billingActive
    ? html`<p class="notice" role="status">Billing is active: tasks start and run within the plan's limits.</p>`
    : html`<div class="error" role="alert"><p>Billing is inactive: new tasks and delegations are refused (<code>billing_inactive</code>) and queued work waits.</p><p>What to do next: ask an owner of the workspace to make billing active again with the service's operator; nothing needs to be redone afterwards.</p></div>`;
  return html`${state}
<table><tbody>
<tr><th scope="row">Plan</th><td>${facts.plan.name}</td></tr>
<tr><th scope="row">Tasks running at once</th><td>${facts.plan.concurrency}</td></tr>
<tr><th scope="row">Queue size</th><td>${facts.plan.queueSize}</td></tr>
<tr><th scope="row">Running now</th><td>${facts.running}</td></tr>
<tr><th scope="row">Queued now</th><td>${facts.queued}</td></tr>
</tbody></table>
<p><a href="${tasksPath(ws)}">Task list</a> · <a href="${settingsPath(ws)}">Settings</a></p>`;
}
