// What the capability routes need beyond the server's deps: the matcher, its budget, the dashboard address for
// e-mail links, and a way to wake the e-mail delivery worker after a commit.
import type { Logger } from "pino";
import type { CapabilityMatcher } from "../../../capability/matcher.js";
import { InputError } from "../../../errors.js";
import type { SecretBox } from "../../primitives/secret-box.js";
import { newId } from "../../primitives/tokens.js";
import type { Store } from "../../store/store.js";
import { domainError } from "../errors.js";
import { enqueueNotification, recipientsFor } from "./outbox.js";
import { dashboardLink, type NotificationKind, renderCapabilityEmail } from "./render-email.js";
import type { StoredRequest } from "./requests-store.js";

export interface CapabilityRuntime {
  db: Store;
  now: () => Date;
  logger: Logger;
  matcher: CapabilityMatcher;
  matcherBudgetMs: number;
  dashboardBase: () => string;
  kickMail: () => void;
  /** Seals secret values before they are stored. */
  secretBox: SecretBox;
}

/** Runs a pure validation and turns its InputError into invalid_request (the message never holds the value). */
export function validated<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof InputError) throw domainError("invalid_request", error.message);
    throw error;
  }
}

/** Writes the notification and its per-recipient deliveries; call inside the transaction of the state change. */
export async function notifyOwners(
  rt: CapabilityRuntime,
  request: StoredRequest,
  kind: NotificationKind,
  now: Date,
): Promise<void> {
  const workspace = (await rt.db.get("SELECT name FROM workspaces WHERE id = ?", [request.workspaceId])) as
    | { name: string }
    | undefined;
  const { subject, text } = renderCapabilityEmail({
    kind,
    workspaceName: workspace?.name ?? request.workspaceId,
    repository: request.repository,
    capability: request.kind,
    target: request.target,
    requestId: request.requestId,
    reason: request.reason,
    dashboardUrl: dashboardLink(
      rt.dashboardBase(),
      request.workspaceId,
      request.repositoryId,
      request.requestId,
    ),
  });
  await enqueueNotification(
    rt.db,
    {
      id: newId("ntf"),
      requestId: request.requestId,
      kind,
      subject,
      text,
      recipients: await recipientsFor(rt.db, request.workspaceId),
    },
    now,
  );
}
