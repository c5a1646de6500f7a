// The capability-request pages' bodies (pure): a repository's requests, and one request (the e-mails' link) with,
// for owners and admins, "Not now" and the form that supplies a secret with its approved hosts. The secret's value
// is a password field that is never filled in: no page ever holds a value.
import type { CapabilityRequest } from "../../../../transport/wire.js";
import { renderWhen } from "../format.js";
import { type Html, html, nothing } from "../html.js";
import { CSRF_FIELD } from "../wire.js";
import { DONE, type Done, SECRET_FIELDS as F } from "./capability-forms.js";
import {
  capabilityDismissPath,
  capabilityRequestPath,
  capabilityRequestsPath,
  capabilitySecretPath,
  settingsPath,
} from "./wire.js";

const STATUS_WORDS: Record<CapabilityRequest["status"], string> = {
  open: "open: waiting for an owner or admin",
  verification_pending: "access supplied; waiting for the agent to confirm it works",
  repair_needed: "the access supplied did not work; it needs repair",
  verified: "verified: the access works",
  dismissed: "dismissed (Not now)",
};
const ACTIONABLE = new Set<CapabilityRequest["status"]>(["open", "repair_needed", "verification_pending"]);

export function renderRequestList(
  ws: string,
  repoSlug: string,
  requests: readonly CapabilityRequest[],
): Html {
  const back = html`<p><a href="${settingsPath(ws)}">Back to the repositories in settings</a></p>`;
  if (requests.length === 0) return html`<p>No capability requests for ${repoSlug}.</p>${back}`;
  const rows = requests.map(
    (r) => html`<tr>
<td data-label="Request"><a href="${capabilityRequestPath(ws, r.repositoryId, r.requestId)}">${r.kind}<span class="vh"> for ${r.target}</span></a></td>
<td data-label="Target">${r.target}</td>
<td data-label="State">${STATUS_WORDS[r.status]}</td>
<td data-label="Updated">${renderWhen(r.updatedAt)}</td>
</tr>`,
  );
  return html`<table><thead><tr><th scope="col">Capability</th><th scope="col">Target</th><th scope="col">State</th><th scope="col">Updated</th></tr></thead>
<tbody>${rows}</tbody></table>${back}`;
}

export interface RequestView {
  ws: string;
  csrfToken: string;
  request: CapabilityRequest;
  canAct: boolean;
  done?: Done | undefined;
  /** A refusal already rendered (renderRefusal). */
  refusal?: Html | undefined;
  /** What the secret form held when it was refused (never the value). */
  secretForm?: { name: string; allowedHosts: string } | undefined;
}

export function renderRequest(view: RequestView): Html {
  const { request: r } = view;
  const done =
    view.done === DONE.dismissed
      ? html`<p class="notice" role="status">Dismissed: the agent is told not now, and this stays so if it asks again.</p>`
      : view.done === DONE.secret
        ? html`<p class="notice" role="status">The secret is saved with its approved hosts. The agent's next sandbox gets it; the request is verified once the agent reports that it works.</p>`
        : nothing;
  return html`${done}${view.refusal ?? nothing}
<table><tbody>
<tr><th scope="row">Repository</th><td>${r.repository}</td></tr>
<tr><th scope="row">Capability</th><td>${r.kind}</td></tr>
<tr><th scope="row">Target</th><td>${r.target}</td></tr>
<tr><th scope="row">Reason</th><td>${r.reason}</td></tr>
<tr><th scope="row">State</th><td>${STATUS_WORDS[r.status]}</td></tr>
<tr><th scope="row">Asked</th><td>${renderWhen(r.createdAt)}</td></tr>
<tr><th scope="row">Updated</th><td>${renderWhen(r.updatedAt)}</td></tr>
</tbody></table>
${renderActions(view)}
<p><a href="${capabilityRequestsPath(view.ws, r.repositoryId)}">All requests of ${r.repository}</a></p>`;
}

function renderActions(view: RequestView): Html {
  const { ws, request: r, csrfToken } = view;
  if (!view.canAct)
    return html`<p class="hint">Only an owner or admin of the workspace can dismiss this request or supply access; ask one of them.</p>`;
  if (!ACTIONABLE.has(r.status)) return html`<p>This request is closed; nothing to do.</p>`;
  const csrf = html`<input type="hidden" name="${CSRF_FIELD}" value="${csrfToken}">`;
  const hosts = view.secretForm?.allowedHosts ?? (r.targetForm === "host" ? r.target : "");
  const dismiss = html`<section aria-labelledby="not-now"><h2 id="not-now">Not now</h2>
<form method="post" action="${capabilityDismissPath(ws, r.repositoryId, r.requestId)}">${csrf}
<button type="submit" class="danger">Not now</button></form></section>`;
  // Once a secret is saved (waiting for the agent's check, or found not to work) the form replaces it: offering to
  // "supply" one again would say that none was saved.
  const replaces = r.status !== "open";
  const heading = replaces ? "Replace the secret" : "Supply a secret";
  const saved = replaces
    ? html`<p class="hint">${
        r.status === "repair_needed"
          ? "A secret was saved, but the agent reported that it did not work: save a corrected one."
          : "A secret is saved and waits for the agent to confirm that it works. Save another only to correct it."
      }</p>`
    : nothing;
  return html`<section aria-labelledby="supply"><h2 id="supply">${heading}</h2>${saved}
<form method="post" action="${capabilitySecretPath(ws, r.repositoryId, r.requestId)}" autocomplete="off">${csrf}
<label for="secret-name">Secret name</label>
<input id="secret-name" name="${F.name}" type="text" required maxlength="200" value="${view.secretForm?.name ?? ""}" aria-describedby="secret-name-hint">
<p class="hint" id="secret-name-hint">The environment variable the sandbox gets: letters, digits and _, not starting with a digit.</p>
<label for="secret-value">Value</label>
<input id="secret-value" name="${F.value}" type="password" required autocomplete="new-password">
<label for="secret-hosts">Approved hosts</label>
<textarea id="secret-hosts" name="${F.allowedHosts}" rows="3" required aria-describedby="secret-hosts-hint">${hosts}</textarea>
<p class="hint" id="secret-hosts-hint">One a line: the secret is sent only to these. ${
    r.targetForm === "host"
      ? html`They must include ${r.target}.`
      : html`They must cover where ${r.target} is reached.`
  }</p>
<button type="submit" class="primary">${replaces ? "Save the new secret" : "Save the secret"}</button>
</form></section>${dismiss}`;
}
