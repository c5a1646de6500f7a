// The code host's installation events: the App's installation (known to the service through the install flow)
// created, deleted, suspended or unsuspended, and repositories added to or removed from it. Each keeps the
// service's records of the installation (adapters/codehost/installations.ts) and returns what it did.
import { AUDIT_EVENTS, logAuditEvent, SERVICE_ACTOR } from "../../../audit/events.js";
import {
  addInstallationRepos,
  installationById,
  removeInstallation,
  removeInstallationRepos,
  setInstallationRepos,
  setInstallationSuspended,
} from "../../adapters/codehost/installations.js";
import {
  CodehostInstallationEventSchema,
  CodehostInstallationReposEventSchema,
} from "./codehost-payloads.js";
import type { IssueEventDeps } from "./issue-event-deps.js";

export async function applyInstallationEvent(deps: IssueEventDeps, payload: unknown): Promise<string> {
  const parsed = CodehostInstallationEventSchema.safeParse(payload);
  if (!parsed.success) return "ignored: the installation payload lacks fields it needs";
  const e = parsed.data;
  const id = String(e.installation.id);
  const { db } = deps.ctx;
  const known = await installationById(db, id);
  if (!known) return `ignored: unknown installation ${id} (the install flow records new ones)`;
  const audit = (event: typeof AUDIT_EVENTS.codehostInstalled | typeof AUDIT_EVENTS.codehostUninstalled) =>
    logAuditEvent(deps.logger, event, {
      actor: SERVICE_ACTOR,
      workspace: known.workspaceId,
      installation: id,
      account: e.installation.account.login,
      via: "webhook",
    });
  switch (e.action) {
    case "created":
      await deps.ctx.commit(async () => {
        if (e.repositories)
          await setInstallationRepos(
            db,
            known,
            e.repositories.map((r) => r.full_name),
          );
      });
      audit(AUDIT_EVENTS.codehostInstalled);
      return `installation ${id} created: ${e.repositories?.length ?? 0} repositories`;
    case "deleted":
      await deps.ctx.commit(() => removeInstallation(db, id));
      audit(AUDIT_EVENTS.codehostUninstalled);
      return `installation ${id} removed; its repositories are disabled`;
    case "suspend":
    case "unsuspend":
      await deps.ctx.commit(() => setInstallationSuspended(db, id, e.action === "suspend"));
      return `installation ${id} ${e.action === "suspend" ? "suspended" : "unsuspended"}`;
    default:
      return `ignored: installation ${e.action}`;
  }
}

export async function applyInstallationReposEvent(deps: IssueEventDeps, payload: unknown): Promise<string> {
  const parsed = CodehostInstallationReposEventSchema.safeParse(payload);
  if (!parsed.success) return "ignored: the installation_repositories payload lacks fields it needs";
  const e = parsed.data;
  const id = String(e.installation.id);
  const { db } = deps.ctx;
  const known = await installationById(db, id);
  if (!known) return `ignored: unknown installation ${id}`;
  const added = e.repositories_added.map((r) => r.full_name);
  const removed = e.repositories_removed.map((r) => r.full_name);
  await deps.ctx.commit(async () => {
    await addInstallationRepos(db, known, added);
    await removeInstallationRepos(db, known, removed);
  });
  return `installation ${id}: ${added.length} repositories added, ${removed.length} removed`;
}
