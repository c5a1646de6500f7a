// The ticket picker's body (pure): the search form, the tracker and code-host facts in words with links to fix
// them, the tickets in the search's order each with a Delegate button, and a notice or refusal on top.
import type { User } from "../../../domain/auth/users.js";
import type { ApiTicket, TicketSearchResponse } from "../../../domain/tickets/search.js";
import { type Html, html, nothing } from "../html.js";
import { CSRF_FIELD } from "../wire.js";
import { codehostInstallHref, trackerLinkHref } from "./refusals.js";
import { delegateFieldsOf } from "./ticket-forms.js";
import { delegatePath, settingsPath, tasksPath, ticketsPath } from "./wire.js";

export interface PickerView {
  ws: string;
  user: User;
  csrfToken: string;
  /** Null when the search itself was refused (the refusal says why). */
  search: TicketSearchResponse | null;
  enabledRepos: readonly string[];
  query: { q: string; repo: string };
  /** The identifier of a ticket just delegated. */
  delegated?: string | undefined;
  /** A refusal already rendered (renderRefusal). */
  refusal?: Html | undefined;
}

export function renderPicker(view: PickerView): Html {
  const notice = view.delegated
    ? html`<p class="notice" role="status">${view.delegated} is delegated. Its task will appear in the <a href="${tasksPath(view.ws)}">task list</a> once it is picked up.</p>`
    : nothing;
  const search = view.search;
  if (!search) return html`${notice}${view.refusal ?? nothing}${renderSearchForm(view)}`;
  return html`${notice}${view.refusal ?? nothing}
<section aria-labelledby="connections"><h2 id="connections">Where tickets come from</h2><ul>${renderFacts(view, search)}</ul></section>
${renderSearchForm(view)}
<section aria-labelledby="found"><h2 id="found">Tickets</h2>${renderTickets(view, search)}</section>`;
}

function renderFacts({ ws, user }: PickerView, search: TicketSearchResponse): Html[] {
  const settings = html`<a href="${settingsPath(ws)}">settings</a>`;
  const tracker = !search.tracker.connected
    ? html`<li>The tracker is not connected, so no tracker issues are shown. An owner or admin connects it in ${settings}.</li>`
    : !search.tracker.identityLinked
      ? html`<li>The tracker is connected, but your tracker account is not linked, so no tracker issues are shown: <a href="${trackerLinkHref(ws)}">link your tracker account</a>.</li>`
      : !search.tracker.identityBound
        ? html`<li>The tracker is connected, but your linked tracker account belongs to another tracker: <a href="${trackerLinkHref(ws)}">link your tracker account again</a>.</li>`
        : html`<li>The tracker is connected and your tracker account is linked: tracker issues are searched as you.</li>`;
  const codehost = !search.codehost.connected
    ? html`<li>The code host is not connected, so no code-host issues are shown. An owner or admin connects it in ${settings} (<a href="${codehostInstallHref(ws)}">connect the code host</a>).</li>`
    : user.codehostLogin === null
      ? html`<li>The code host is connected, but no code-host account is known for you, so no code-host issues are shown; see ${settings}.</li>`
      : html`<li>The code host is connected; issues are searched as ${user.codehostLogin}. ${
          search.codehost.repo
            ? html`${search.codehost.repo} is searched first.`
            : html`All enabled repositories are searched alike.`
        }</li>`;
  return [tracker, codehost];
}

function renderSearchForm({ ws, enabledRepos, query }: PickerView): Html {
  const options = enabledRepos.map(
    (repo) =>
      html`<option value="${repo}"${repo === query.repo ? html` selected` : nothing}>${repo}</option>`,
  );
  return html`<form method="get" action="${ticketsPath(ws)}" role="search">
<p><label for="q">Search the tickets</label> <input id="q" name="q" type="search" maxlength="200" value="${query.q}"></p>
<p><label for="repo">Repository searched first</label> <select id="repo" name="repo"><option value="">Any enabled repository</option>${options}</select></p>
<p><button type="submit">Search</button></p>
</form>`;
}

function renderTickets({ ws, csrfToken }: PickerView, search: TicketSearchResponse): Html {
  if (search.tickets.length === 0)
    return html`<p>No tickets to delegate. Only open issues that are yours or unassigned are listed; check the connections above.</p>`;
  const rows = search.tickets.map(
    (ticket) => html`<tr>
<td data-label="Ticket"><a href="${ticket.url}" rel="noreferrer">${ticket.identifier}</a>${ticket.yours ? html` <small>(yours)</small>` : nothing}</td>
<td data-label="Title">${ticket.title}${ticket.context ? html`<br><small>${ticket.context}</small>` : nothing}</td>
<td data-label="From">${ticket.source === "tracker" ? "Tracker" : "Code host"}</td>
<td>${renderDelegateForm(ws, csrfToken, ticket)}</td>
</tr>`,
  );
  return html`<table>
<thead><tr><th scope="col">Ticket</th><th scope="col">Title</th><th scope="col">From</th><th scope="col"><span class="vh">Action</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

function renderDelegateForm(ws: string, csrfToken: string, ticket: ApiTicket): Html {
  const hidden = Object.entries(delegateFieldsOf(ticket)).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return html`<form method="post" action="${delegatePath(ws)}">
<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken}">
${hidden}
<button type="submit">Delegate<span class="vh"> ${ticket.identifier}</span></button>
</form>`;
}
