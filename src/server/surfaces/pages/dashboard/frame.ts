// The frame of every dashboard page (pure): the site header (the reader's own pages, the tokens page among them;
// who is signed in; sign out), the workspace switcher, the section nav with `aria-current`, then the page's body.
// An error page keeps the frame: without a workspace it is in (a 404 for one that is not the reader's), the
// switcher lists every workspace and no section is shown; the dashboard script (polling) loads
// from our own origin, which the dashboard's CSP alone allows.
import { raw } from "hono/html";
import type { Membership, User } from "../../../domain/auth/users.js";
import { type Html, html, nothing } from "../html.js";
import { renderAccountLinks } from "../layout.js";
import { STYLESHEET } from "../style.js";
import { CSRF_FIELD, PAGE_PATHS } from "../wire.js";
import type { WorkspaceAccess } from "./access.js";
import {
  DASHBOARD_HOME,
  DASHBOARD_SCRIPT_PATH,
  newTaskPath,
  settingsPath,
  tasksPath,
  ticketsPath,
} from "./wire.js";

export type DashboardSection = "tasks" | "new-task" | "tickets" | "settings";

/** Where the reader is: the workspace (none on an error page outside one) and all of theirs. */
export interface FrameAccess {
  membership?: Membership | undefined;
  memberships: Membership[];
}

export interface DashboardPageOptions {
  /** The document title and the page's `<h1>`. */
  title: string;
  user: User;
  /** The session's CSRF token, for the sign-out form. */
  csrfToken: string;
  access: WorkspaceAccess | FrameAccess;
  /** The nav entry marked `aria-current="page"` ("new-task" marks New task rather than Tasks); none on an error page. */
  section?: DashboardSection | undefined;
  body: Html;
}

export function renderDashboardPage(options: DashboardPageOptions): string {
  const ws = options.access.membership;
  const where = ws ? html`${ws.workspaceName} · ` : nothing;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${options.title} · ${where}Baton</title>
<style>${raw(STYLESHEET)}</style>
<script src="${DASHBOARD_SCRIPT_PATH}" defer></script>
</head>
<body class="dashboard">
<a class="skip" href="#main">Skip to the page</a>
<header>
<a class="brand" href="${DASHBOARD_HOME}">Baton</a>
${renderAccountLinks()}
<span>Signed in as ${options.user.email}</span>
<form method="post" action="${PAGE_PATHS.signOut}"><input type="hidden" name="${CSRF_FIELD}" value="${options.csrfToken}"><button type="submit">Sign out</button></form>
</header>
${renderSwitcher(options.access)}
${ws ? renderSectionNav(ws.workspaceId, options.section) : nothing}
<main id="main" tabindex="-1">
<h1>${options.title}</h1>
${options.body}
</main>
</body>
</html>
`.toString();
}

/** Links to each of the user's workspaces (their task lists); the current one, if any, is marked. */
function renderSwitcher(access: FrameAccess): Html {
  if (access.membership && access.memberships.length < 2)
    return html`<p class="workspace">Workspace: <strong>${access.membership.workspaceName}</strong></p>`;
  if (access.memberships.length === 0) return nothing;
  const items = access.memberships.map((m) => {
    const current = m.workspaceId === access.membership?.workspaceId;
    return html`<li><a href="${tasksPath(m.workspaceId)}"${current ? raw(' aria-current="true"') : nothing}>${m.workspaceName}</a>${current ? html` <span class="badge">current</span>` : nothing}</li>`;
  });
  return html`<nav class="workspaces" aria-label="Workspaces"><span>Workspaces:</span><ul>${items}</ul></nav>`;
}

function renderSectionNav(ws: string, section: DashboardSection | undefined): Html {
  const entries: [DashboardSection, string, string][] = [
    ["tasks", "Tasks", tasksPath(ws)],
    ["new-task", "New task", newTaskPath(ws)],
    ["tickets", "Tickets", ticketsPath(ws)],
    ["settings", "Settings", settingsPath(ws)],
  ];
  const items = entries.map(
    ([key, label, href]) =>
      html`<li><a href="${href}"${key === section ? raw(' aria-current="page"') : nothing}>${label}</a></li>`,
  );
  return html`<nav class="sections" aria-label="Sections"><ul>${items}</ul></nav>`;
}
