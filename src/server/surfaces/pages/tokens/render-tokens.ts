// The personal-access-tokens half of the tokens page (pure: data in, Html out): the token shown once after it is
// made, the list by name and last four, and the create form.
import type { TokenSummary } from "../../../domain/auth/own-tokens.js";
import type { CreatedToken } from "../../../domain/auth/personal-tokens-store.js";
import { TOKEN_LIFETIME_DAYS, TOKEN_NAME_MAX_CHARS } from "../../../domain/limits.js";
import { renderWhen } from "../format.js";
import { type Html, html, nothing } from "../html.js";
import { CSRF_FIELD } from "../wire.js";
import { TOKEN_FORM_FIELDS as F, TOKENS_PAGE_PATHS } from "./wire.js";

export const DEFAULT_LIFETIME_DAYS = 90;

const STATE_WORDS = { active: "Active", expired: "Expired", revoked: "Revoked" } as const;

/** The one time the token's value is ever shown. */
export function renderCreatedToken(created: CreatedToken): Html {
  return html`<section class="secret" aria-labelledby="created-heading">
<h2 id="created-heading">Your new token “${created.name}”</h2>
<p><strong>Copy it now: you will not see it again.</strong> Only its name and last four characters are kept; if you lose it, revoke it and create another.</p>
<label for="created-token">Token (expires ${renderWhen(created.expiresAt)})</label>
<textarea id="created-token" readonly rows="2" autocomplete="off" spellcheck="false">${created.token}</textarea>
<p class="hint">Use it as <code>Authorization: Bearer …</code>, or sign the command-line client in: run <code>baton login --token</code>, then paste it when asked (never after <code>--token</code> on the command line).</p>
</section>`;
}

export function renderTokenList(tokens: readonly TokenSummary[], csrfToken: string): Html {
  if (tokens.length === 0) return html`<p>You have no personal access tokens yet.</p>`;
  const rows = tokens.map(
    (token) => html`<tr>
<td data-label="Name">${token.name}</td>
<td data-label="Ends in"><code>…${token.lastFour}</code></td>
<td data-label="Created">${renderWhen(token.createdAt)}</td>
<td data-label="Expires">${renderWhen(token.expiresAt)}</td>
<td data-label="State">${STATE_WORDS[token.state]}</td>
<td>${token.state === "revoked" ? nothing : renderRevokeButton(token, csrfToken)}</td>
</tr>`,
  );
  return html`<table>
<thead><tr><th scope="col">Name</th><th scope="col">Ends in</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">State</th><th scope="col"><span class="vh">Action</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

function renderRevokeButton(token: TokenSummary, csrfToken: string): Html {
  return html`<form method="post" action="${TOKENS_PAGE_PATHS.revoke}">
<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken}">
<input type="hidden" name="${F.tokenId}" value="${token.id}">
<button type="submit" class="danger">Revoke<span class="vh"> the token “${token.name}” ending in ${token.lastFour}</span>…</button>
</form>`;
}

export interface CreateFormState {
  formId: string;
  csrfToken: string;
  /** What the person typed, kept when the form is shown again with an error. */
  name?: string | undefined;
  lifetimeDays?: string | undefined;
  error?: string | undefined;
}

export function renderCreateForm(state: CreateFormState): Html {
  const chosen = state.lifetimeDays ?? String(DEFAULT_LIFETIME_DAYS);
  const options = TOKEN_LIFETIME_DAYS.map(
    (days) =>
      html`<option value="${days}"${String(days) === chosen ? html` selected` : nothing}>${days} days</option>`,
  );
  const error = state.error
    ? html`<p class="error" role="alert" id="create-error">${state.error}</p>`
    : nothing;
  return html`<form method="post" action="${TOKENS_PAGE_PATHS.list}" aria-labelledby="create-heading">
<h3 id="create-heading">Create a token</h3>
${error}
<input type="hidden" name="${CSRF_FIELD}" value="${state.csrfToken}">
<input type="hidden" name="${F.formId}" value="${state.formId}">
<label for="token-name">Name</label>
<input id="token-name" name="${F.name}" type="text" required maxlength="${TOKEN_NAME_MAX_CHARS}" autocomplete="off" value="${state.name ?? ""}"${state.error ? html` aria-describedby="create-error" aria-invalid="true"` : nothing}>
<label for="token-lifetime">Expires after</label>
<select id="token-lifetime" name="${F.lifetimeDays}">${options}</select>
<button type="submit" class="primary">Create token</button>
</form>`;
}
