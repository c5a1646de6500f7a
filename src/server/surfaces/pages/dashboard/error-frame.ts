// The dashboard's error pages keep its frame (issue 37 A.9): who is signed in, sign out, the tokens page, the
// workspace switcher and, inside a workspace of the reader's, its sections. So a 404 (another workspace's task, a
// mistyped address) or a refused form is never a dead end. A reader who is not signed in gets the plain page.
import type { Context, ErrorHandler } from "hono";
import { membershipOf, membershipsOf, type User } from "../../../domain/auth/users.js";
import type { PagesDeps } from "../deps.js";
import type { PagesEnv } from "../env.js";
import { type ErrorPage, errorPageOf, readerOf, renderErrorBody, renderErrorPage } from "../error-page.js";
import { contentSecurityPolicy, PAGE_HEADERS } from "../headers.js";
import { readWebSession } from "../session.js";
import { renderDashboardPage } from "./frame.js";
import { DASHBOARD_HOME, WORKSPACES_BASE } from "./wire.js";

const BACK: ErrorPage["next"] = { href: DASHBOARD_HOME, label: "Back to the dashboard" };

/** The workspace id a dashboard path names (`/dashboard/workspaces/<id>/…`), if any. */
export function workspaceInPath(path: string): string | undefined {
  if (!path.startsWith(`${WORKSPACES_BASE}/`)) return undefined;
  const segment = path.slice(WORKSPACES_BASE.length + 1).split("/", 1)[0];
  if (!segment) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

async function renderFramed(
  deps: PagesDeps,
  reader: { user: User; csrfToken: string },
  path: string,
  page: ErrorPage,
): Promise<string> {
  const ws = workspaceInPath(path);
  const membership = ws === undefined ? undefined : await membershipOf(deps.db, reader.user, ws);
  return renderDashboardPage({
    title: page.title,
    user: reader.user,
    csrfToken: reader.csrfToken,
    access: { membership, memberships: await membershipsOf(deps.db, reader.user) },
    body: renderErrorBody(page),
  });
}

/** The error page for `page`, in the frame when the request carries a live session. */
export async function answerErrorPage(
  deps: PagesDeps,
  c: Context,
  page: ErrorPage,
  reader: { user?: User | undefined; csrfToken?: string | undefined },
): Promise<Response> {
  const status = page.status as 400;
  if (!reader.user || !reader.csrfToken) return c.html(renderErrorPage(page), status);
  try {
    return c.html(
      await renderFramed(deps, { user: reader.user, csrfToken: reader.csrfToken }, c.req.path, page),
      status,
    );
  } catch (error) {
    // The store may be what failed: the page still answers, with the header only.
    deps.logger.error({ err: `${(error as Error).name}` }, "error page without its frame");
    return c.html(renderErrorPage(page, reader), status);
  }
}

/** onError of the dashboard's routes. */
export function handleDashboardError(deps: PagesDeps): ErrorHandler<PagesEnv> {
  return (error, c) => answerErrorPage(deps, c, errorPageOf(deps.logger, error, c, BACK), readerOf(c));
}

/**
 * The 404 of a GET under /dashboard that no route answers (the composition's not-found hands it here): an HTML
 * page in the frame, not the API's JSON. The session is read when no dashboard middleware read it already.
 */
export async function answerDashboardNotFound(deps: PagesDeps, c: Context): Promise<Response> {
  const known = readerOf(c);
  const reader = known.user ? known : ((await readWebSession(deps, c)) ?? {});
  const page: ErrorPage = {
    status: 404,
    title: "Not found",
    message: "There is no page at this address. Check it, or go on from the dashboard.",
    next: BACK,
  };
  const answer = await answerErrorPage(deps, c, page, reader);
  // No dashboard middleware ran for most such paths: the page gets the pages' headers here (the frame's script).
  for (const [name, value] of Object.entries(PAGE_HEADERS)) answer.headers.set(name, value);
  answer.headers.set("content-security-policy", contentSecurityPolicy([], { ownScript: true }));
  return answer;
}
