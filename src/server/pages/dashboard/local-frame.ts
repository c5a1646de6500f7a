// A stand-in for the dashboard frame (frame.ts, helper "tasks") with the same shape, so the ticket, settings and
// capability pages switch to the shared frame by changing one import: the shared layout, the workspace's name
// and the section links (tasks, tickets, settings).
import type { User } from "../../auth/users.js";
import { type Html, html } from "../html.js";
import { renderPage } from "../layout.js";
import type { WorkspaceAccess } from "./access.js";
import { settingsPath, tasksPath, ticketsPath } from "./wire.js";

export interface DashboardPageOptions {
  title: string;
  user: User;
  csrfToken: string;
  access: WorkspaceAccess;
  section: "tasks" | "tickets" | "settings";
  body: Html;
}

export function renderDashboardPage(options: DashboardPageOptions): string {
  const ws = options.access.membership.workspaceId;
  const link = (section: DashboardPageOptions["section"], href: string, label: string) =>
    section === options.section
      ? html`<li><a href="${href}" aria-current="page">${label}</a></li>`
      : html`<li><a href="${href}">${label}</a></li>`;
  return renderPage({
    title: options.title,
    user: options.user,
    csrfToken: options.csrfToken,
    body: html`<nav aria-label="${options.access.membership.workspaceName}"><p>Workspace: <strong>${options.access.membership.workspaceName}</strong></p><ul>
${link("tasks", tasksPath(ws), "Tasks")}${link("tickets", ticketsPath(ws), "Tickets")}${link("settings", settingsPath(ws), "Settings")}
</ul></nav>
${options.body}`,
  });
}
