// What a page answers when a route refuses or fails: an HTML page (not the API's JSON) that says what happened
// and what to do next, with the same status. A failure's details go to the log only, never onto the page.
import type { Context, ErrorHandler } from "hono";
import type { Logger } from "pino";
import { HttpError } from "../http/http-error.js";
import type { ServerEnv } from "../http/surface.js";
import { html } from "./html.js";
import { renderPage } from "./layout.js";

export interface ErrorPage {
  status: number;
  title: string;
  message: string;
  /** Where to go next, and the link's words. */
  next: { href: string; label: string };
}

export function renderErrorPage(page: Omit<ErrorPage, "status">): string {
  return renderPage({
    title: page.title,
    body: html`<p class="error" role="alert">${page.message}</p><p><a href="${page.next.href}">${page.next.label}</a></p>`,
  });
}

/** onError for a pages sub-app: an HttpError's reason is shown; anything else is a logged 500. */
export function handlePageError<E extends ServerEnv>(
  logger: Logger,
  back: ErrorPage["next"],
): ErrorHandler<E> {
  return (error, c) => {
    if (error instanceof HttpError)
      return c.html(
        renderErrorPage({ title: titleFor(error.status), message: error.reason, next: back }),
        error.status as 400,
      );
    logger.error(
      {
        requestId: (c as unknown as Context<ServerEnv>).get("requestId"),
        err: `${error.name}: ${error.message}`,
      },
      "page failed",
    );
    return c.html(
      renderErrorPage({
        title: "Something went wrong",
        message: "The service failed to show this page. Try again in a minute.",
        next: back,
      }),
      500,
    );
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
