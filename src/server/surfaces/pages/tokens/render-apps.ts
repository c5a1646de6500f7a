// The connected-apps half of the tokens page (pure): the apps the person signed in to with the browser (the
// command-line client, MCP clients) and a Disconnect button each, effective at the app's next call.
import type { ConnectedApp } from "../../oauth/connected-apps.js";
import { renderWhen } from "../format.js";
import { type Html, html } from "../html.js";
import { CSRF_FIELD } from "../wire.js";
import { TOKEN_FORM_FIELDS as F, TOKENS_PAGE_PATHS } from "./wire.js";

export function renderConnectedApps(apps: readonly ConnectedApp[], csrfToken: string): Html {
  if (apps.length === 0)
    return html`<p>No apps are connected. Signing in with <code>baton login</code> or an MCP client adds one here.</p>`;
  const rows = apps.map(
    (app) => html`<tr>
<td data-label="App">${app.clientName}</td>
<td data-label="Connected">${renderWhen(app.createdAt)}</td>
<td data-label="Last used">${renderWhen(app.lastUsedAt, "never")}</td>
<td data-label="Signed in until">${renderWhen(app.expiresAt)}</td>
<td><form method="post" action="${TOKENS_PAGE_PATHS.disconnect}">
<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken}">
<input type="hidden" name="${F.grantId}" value="${app.grantId}">
<button type="submit" class="danger">Disconnect<span class="vh"> ${app.clientName}</span>…</button>
</form></td>
</tr>`,
  );
  return html`<table>
<thead><tr><th scope="col">App</th><th scope="col">Connected</th><th scope="col">Last used</th><th scope="col">Signed in until</th><th scope="col"><span class="vh">Action</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}
