// What a page answers when a route refuses or fails: an HTML page (not the API's JSON) that says what happened
// and what to do next, with the same status. A failure's details go to the log only, never onto the page. A
// signed-in reader keeps the header (who is signed in, sign out); the dashboard's own handler keeps its whole
// frame (dashboard/error-frame.ts).
import type { Context, ErrorHandler } from "hono";
import type { Logger } from "pino";
import type { User } from "../../domain/auth/users.js";
import { HttpError } from "../http/http-error.js";
import type { ServerEnv } from "../http/surface.js";
import { type Html, html } from "./html.js";
import { renderPage } from "./layout.js";

/** A refusal a page shows under a title of its own (not the status's general one). */
export class PageRefusal extends HttpError {
  constructor(
    status: number,
    error: string,
    reason: string,
    readonly title: string,
  ) {
    super(status, error, reason);
  }
}

export interface ErrorPage {
  status: number;
  title: string;
  message: string;
  /** Where to go next, and the link's words. */
  next: { href: string; label: string };
}

/** The body of an error page: the message as an alert and the link to what to do next. */
export const renderErrorBody = (page: Pick<ErrorPage, "message" | "next">): Html =>
  html`<p class="error" role="alert">${page.message}</p><p><a href="${page.next.href}">${page.next.label}</a></p>`;

export function renderErrorPage(
  page: Omit<ErrorPage, "status">,
  reader: { user?: User | undefined; csrfToken?: string | undefined } = {},
): string {
  return renderPage({ title: page.title, body: renderErrorBody(page), ...reader });
}

/** What a refusal or failure shows (an HttpError's reason; anything else is logged and said in general words). */
export function errorPageOf(logger: Logger, error: Error, c: Context, next: ErrorPage["next"]): ErrorPage {
  if (error instanceof HttpError) {
    const title = error instanceof PageRefusal ? error.title : titleFor(error.status);
    return { status: error.status, title, message: error.reason, next };
  }
  logger.error(
    {
      requestId: (c as unknown as Context<ServerEnv>).get("requestId"),
      err: `${error.name}: ${error.message}`,
    },
    "page failed",
  );
  return {
    status: 500,
    title: "Something went wrong",
    message: "The service failed to show this page. Try again in a minute.",
    next,
  };
}

/** The signed-in reader of a page whose session middleware ran (none before it, or on a public page). */
export function readerOf(c: Context): { user?: User | undefined; csrfToken?: string | undefined } {
  const vars = c as unknown as Context<ServerEnv<{ webUser?: User; csrfToken?: string }>>;
  return { user: vars.get("webUser"), csrfToken: vars.get("csrfToken") };
}

/** onError for a pages sub-app: an HttpError's reason is shown; anything else is a logged 500. */
export function handlePageError<E extends ServerEnv>(
  logger: Logger,
  back: ErrorPage["next"],
): ErrorHandler<E> {
  return (error, c) => {
    const page = errorPageOf(logger, error, c, back);
    return c.html(renderErrorPage(page, readerOf(c)), page.status as 400);
  };
}

function titleFor(status: number): string {
  if (status === 404) return "Not found";
  if (status === 403) return "Not allowed";
  if (status === 413) return "Too large";
  if (status === 409) return "Cannot connect";
  if (status === 502) return "The platform could not be reached";
  return "Please check the form";
}
