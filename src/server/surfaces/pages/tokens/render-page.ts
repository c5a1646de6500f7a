// The whole tokens page and its confirmation steps (pure): what the routes hand to renderPage.
import type { TokenSummary } from "../../../domain/auth/own-tokens.js";
import type { CreatedToken } from "../../../domain/auth/personal-tokens-store.js";
import type { User } from "../../../domain/auth/users.js";
import type { ConnectedApp } from "../../oauth/connected-apps.js";
import { type Html, html, nothing } from "../html.js";
import { renderPage } from "../layout.js";
import { CSRF_FIELD } from "../wire.js";
import { renderConnectedApps } from "./render-apps.js";
import {
  type CreateFormState,
  renderCreatedToken,
  renderCreateForm,
  renderTokenList,
} from "./render-tokens.js";
import { CONFIRM_YES, TOKEN_FORM_FIELDS as F, type Notice, TOKENS_PAGE_PATHS } from "./wire.js";

export const TOKENS_PAGE_TITLE = "Access tokens";

const NOTICE_WORDS: Record<Notice, string> = {
  revoked: "The token is revoked. Anything still using it is refused from its next call.",
  "already-revoked": "That token was already revoked.",
  disconnected: "The app is disconnected. Its next call is refused; sign in again there to reconnect it.",
  "already-created":
    "That form was already used: its token was shown once and is in the list below. Create another if you need its value.",
};

export interface TokensPageView {
  user: User;
  csrfToken: string;
  tokens: readonly TokenSummary[];
  apps: readonly ConnectedApp[];
  form: Omit<CreateFormState, "csrfToken">;
  notice?: Notice | undefined;
  created?: CreatedToken | undefined;
}

export function renderTokensPage(view: TokensPageView): string {
  const notice = view.notice
    ? html`<p class="notice" role="status">${NOTICE_WORDS[view.notice]}</p>`
    : nothing;
  return renderPage({
    title: TOKENS_PAGE_TITLE,
    user: view.user,
    csrfToken: view.csrfToken,
    current: "tokens",
    body: html`${notice}${view.created ? renderCreatedToken(view.created) : nothing}
<section aria-labelledby="tokens-heading">
<h2 id="tokens-heading">Personal access tokens</h2>
<p class="hint">A token acts as you in every workspace you belong to, for scripts and the command-line client. It lasts 30, 90 or 365 days; revoke it when it is no longer needed.</p>
${renderTokenList(view.tokens, view.csrfToken)}
${renderCreateForm({ ...view.form, csrfToken: view.csrfToken })}
</section>
<section aria-labelledby="apps-heading">
<h2 id="apps-heading">Connected apps</h2>
<p class="hint">Apps you signed in to with your browser. Each stays signed in for up to 90 days, or until 30 days pass unused. Disconnect ends it at the app's next call.</p>
${renderConnectedApps(view.apps, view.csrfToken)}
</section>`,
  });
}

export interface ConfirmView {
  user: User;
  csrfToken: string;
  title: string;
  question: Html;
  action: string;
  field: { name: string; value: string };
  button: string;
}

/** The second step of Revoke and Disconnect: says what will happen, then posts again with `confirm=yes`. */
export function renderConfirmPage(view: ConfirmView): string {
  return renderPage({
    title: view.title,
    user: view.user,
    csrfToken: view.csrfToken,
    body: html`<p>${view.question}</p>
<form method="post" action="${view.action}">
<input type="hidden" name="${CSRF_FIELD}" value="${view.csrfToken}">
<input type="hidden" name="${view.field.name}" value="${view.field.value}">
<input type="hidden" name="${F.confirm}" value="${CONFIRM_YES}">
<button type="submit" class="danger">${view.button}</button>
</form>
<p><a href="${TOKENS_PAGE_PATHS.list}">Cancel and go back to the tokens page</a></p>`,
  });
}
