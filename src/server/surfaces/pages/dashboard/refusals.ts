// How the dashboard shows a domain refusal (pure): the status the API answers for it, the reason exactly as the
// domain wrote it, and a link to what to do next (link an account, connect in settings, billing, the task list).

import type { DomainError } from "../../../domain/errors.js";
import { apiErrorOf } from "../../api/errors.js";
import { httpErrorOf } from "../../http/domain-errors.js";
import { WIRE_DOMAIN_ANSWERS } from "../../http/wire-domain-answers.js";
import { type Html, html } from "../html.js";
import { INSTALL_PATHS, WORKSPACE_PARAM } from "../install/wire.js";
import { billingPath, settingsPath, tasksPath, ticketsPath } from "./wire.js";

export interface NextStep {
  href: string;
  label: string;
}

export const trackerLinkHref = (ws: string): string =>
  `${INSTALL_PATHS.tracker}?${WORKSPACE_PARAM}=${encodeURIComponent(ws)}`;
export const codehostInstallHref = (ws: string): string =>
  `${INSTALL_PATHS.codehost}?${WORKSPACE_PARAM}=${encodeURIComponent(ws)}`;

/** What to do after a ticket refusal, by its code. */
export function nextStepForTicket(code: DomainError["code"], ws: string): NextStep {
  switch (code) {
    case "tracker_identity_unlinked":
      return { href: trackerLinkHref(ws), label: "Link your tracker account" };
    case "tracker_not_connected":
    case "codehost_not_connected":
    case "codehost_account_missing":
    case "invalid_repo":
      return { href: settingsPath(ws), label: "Open the workspace settings" };
    case "billing_inactive":
      return { href: billingPath(ws), label: "See the plan and billing" };
    case "queue_full":
    case "too_many_running":
      return { href: tasksPath(ws), label: "See the task list and wait for a slot" };
    default:
      return { href: ticketsPath(ws), label: "Back to the tickets" };
  }
}

/** The public API's status for a ticket refusal (the same function answers both). */
export const ticketRefusalStatus = (error: DomainError): number => apiErrorOf(error).status;

/** The member routes' status for a capability refusal (the same functions answer both). */
export const capabilityRefusalStatus = (error: DomainError): number =>
  httpErrorOf(WIRE_DOMAIN_ANSWERS, error).status;

export function renderRefusal(reason: string, next: NextStep): Html {
  return html`<div class="error" role="alert"><p>${reason}</p><p>What to do next: <a href="${next.href}">${next.label}</a>.</p></div>`;
}
