// Where a browser goes right after a sign-in (pure). A sign-in must never carry a browser straight into a flow that
// acts on a GET (an install under /install/… issues its state and sends the browser to the platform's consent,
// which may approve at once), because a sign-in can be started by someone else: such a `next` lands on the
// continue page, which names who is signed in and where the click leads. Pages that only show something, or ask
// for their own click behind a CSRF-protected form (the dashboard, the tokens page, the approval page of the CLI
// and MCP sign-ins), are reached directly. Anything not listed here gets the continue page.
import { OAUTH_PATHS } from "../oauth/wire.js";
import { INSTALL_BASE } from "./install/wire.js";
import { PAGE_PATHS, PAGES_BASE_PATH } from "./wire.js";

/** Path prefixes a sign-in may redirect to at once: every GET under them only shows a page. */
const STRAIGHT_TO = [PAGES_BASE_PATH, OAUTH_PATHS.interaction] as const;

/** `next` must already be a safeNextPath answer (a plain path, dot segments resolved). */
export function landingAfterSignIn(next: string): string {
  const path = next.split(/[?#]/, 1)[0] ?? "";
  if (STRAIGHT_TO.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))) return next;
  return `${PAGE_PATHS.signInContinue}?next=${encodeURIComponent(next)}`;
}

/** What the continue page says the click will do, by where it leads. */
export function describeDestination(next: string): string {
  const path = next.split(/[?#]/, 1)[0] ?? "";
  if (path.startsWith(`${INSTALL_BASE}/codehost`))
    return "connects a code-host account's repositories to a Baton workspace";
  if (path.startsWith(`${INSTALL_BASE}/tracker`))
    return "connects an issue tracker to a Baton workspace, or links your tracker identity";
  if (path.startsWith(`${INSTALL_BASE}/`)) return "connects another service to a Baton workspace";
  return "continues what was started before you signed in";
}
