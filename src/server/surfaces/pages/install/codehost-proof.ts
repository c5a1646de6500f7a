// The code-host install callback's proof that the installation is the signed-in person's (GitHub's guidance for
// a Setup URL: `installation_id` is only a claim anyone can edit). The App requests user authorization during
// installation, so the callback also carries a `code`; the code host trades it for the installer's own token and
// lists the installations they can access, and the callback connects `installation_id` only if it is among them.
// `state` alone binds the member and workspace that started the flow, not the installation.
import type { UserInstallations } from "../../../adapters/codehost/app-api.js";

export type InstallProofRefusal = "no_code" | "code_refused" | "not_yours";

export type InstallProof = { ok: true } | { ok: false; reason: InstallProofRefusal; detail: string };

/** Whether the user's installations (read with the callback's code) hold `installationId` (pure). */
export function judgeInstallationAccess(installationId: string, access: UserInstallations): InstallProof {
  if (!access.ok) return { ok: false, reason: "code_refused", detail: access.refusal };
  if (!access.installationIds.includes(installationId))
    return { ok: false, reason: "not_yours", detail: `${access.installationIds.length} accessible` };
  return { ok: true };
}

const SETTING = `the App's "Request user authorization (OAuth) during installation" setting`;

/** What the refusal page says, and its status: what happened and what to do next. */
export function refusalOf(
  installationId: string,
  reason: InstallProofRefusal,
  detail: string,
): { status: 400 | 403; message: string } {
  const again = "start again from the workspace's code-host install link";
  switch (reason) {
    case "no_code":
      return {
        status: 400,
        message: `this link carries no authorization code, so Baton cannot check that installation ${installationId} is yours; the service's operator turns on ${SETTING} (docs/operators.md), then ${again}`,
      };
    case "code_refused":
      return {
        status: 400,
        message: `the code host refused the authorization code (${detail}), so nothing was connected; ${again}`,
      };
    case "not_yours":
      return {
        status: 403,
        message: `installation ${installationId} is not one your code-host account can access, so nothing was connected; install the App on an account you administer and ${again}`,
      };
  }
}
