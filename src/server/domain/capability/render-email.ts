// The notification e-mail (reference section 4/6): names the repository, capability, target and request id with
// a dashboard link. It is built only from request metadata, so no secret value can reach it.
export type NotificationKind = "new_request" | "repair";

export interface EmailFacts {
  kind: NotificationKind;
  workspaceName: string;
  repository: string;
  capability: string;
  target: string;
  requestId: string;
  reason: string;
  dashboardUrl: string;
}

export function dashboardLink(
  base: string,
  workspaceId: string,
  repositoryId: string,
  requestId: string,
): string {
  const root = base.replace(/\/+$/, "");
  return `${root}/workspaces/${encodeURIComponent(workspaceId)}/repos/${encodeURIComponent(repositoryId)}/capability-requests/${encodeURIComponent(requestId)}`;
}

export function renderCapabilityEmail(facts: EmailFacts): { subject: string; text: string } {
  const headline =
    facts.kind === "new_request"
      ? `An agent needs ${facts.capability} for ${facts.target} in ${facts.repository}`
      : `Access for ${facts.target} in ${facts.repository} needs repair`;
  const next =
    facts.kind === "new_request"
      ? "Supply access by writing a repository secret with this request's id (capabilityRequestId), or dismiss it."
      : "The supplied access was refused (401/403). Rotate the bound secret or write a new one with this request's id.";
  const text = [
    headline,
    "",
    `Workspace:  ${facts.workspaceName}`,
    `Repository: ${facts.repository}`,
    `Capability: ${facts.capability}`,
    `Target:     ${facts.target}`,
    `Request id: ${facts.requestId}`,
    `Reason:     ${facts.reason}`,
    "",
    next,
    `Open it on the dashboard: ${facts.dashboardUrl}`,
    "",
    "This e-mail never contains secret values. Running agents rerun `baton env activate` to apply new access.",
  ].join("\n");
  return { subject: `[Baton] ${headline} (${facts.requestId})`, text: `${text}\n` };
}
