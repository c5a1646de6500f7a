// GET /install/codehost and its callback: the code host's App installation flow. The start route (an owner or
// admin, signed in) issues a single-use state and sends the browser to the App's installation page; the code
// host sends it back to the callback (the App's "Setup URL") with `installation_id`, `setup_action`, the state and
// (the App requests user authorization during installation) a `code`. The state binds the member and workspace;
// the code proves the installation is the member's own on the code host (codehost-proof.ts), since anyone can
// edit `installation_id`. Then the callback reads the installation and its repositories with the App's own
// credentials and records both in one commit. Without an App configured
// (`--codehost-app-id`) both routes answer a page saying so.

import { AUDIT_EVENTS, logAuditEvent } from "../../../../audit/events.js";
import { WIRE_ERRORS } from "../../../../transport/wire.js";
import {
  InstallationElsewhereError,
  recordInstallation,
  setInstallationRepos,
} from "../../../adapters/codehost/installations.js";
import { consumeInstallState, issueInstallState } from "../../../domain/auth/install-state.js";
import { HttpError } from "../../http/http-error.js";
import type { PagesDeps } from "../deps.js";
import { html } from "../html.js";
import { renderPage } from "../layout.js";
import { judgeInstallationAccess, refusalOf } from "./codehost-proof.js";
import { type InstallApp, requireMembership, stateRefusal } from "./common.js";
import { INSTALL_PATHS, WORKSPACE_PARAM } from "./wire.js";

/** The code host's installation page for the App (pure). */
export function appInstallUrl(webUrl: string, slug: string, state: string): string {
  return `${webUrl}/apps/${encodeURIComponent(slug)}/installations/new?state=${encodeURIComponent(state)}`;
}

export function addCodehostInstallRoutes(app: InstallApp, deps: PagesDeps): void {
  const notConfigured = () =>
    new HttpError(
      404,
      WIRE_ERRORS.notFound,
      "this service has no code-host App configured; its operator sets --codehost-app-id, --codehost-app-slug, --codehost-private-key-file, --codehost-client-id and --codehost-client-secret-file",
    );

  app.get(INSTALL_PATHS.codehost, async (c) => {
    const settings = deps.integrations.codehost.app;
    if (!settings || !deps.codehostApp) throw notConfigured();
    const membership = await requireMembership(deps, c, "codehost", c.req.query(WORKSPACE_PARAM), "admin");
    const state = await issueInstallState(
      deps.db,
      deps.secretBox,
      { kind: "codehost", workspaceId: membership.workspaceId, userId: c.get("webUser").id },
      deps.now(),
    );
    return c.redirect(appInstallUrl(settings.webUrl, settings.appSlug, state), 302);
  });

  app.get(INSTALL_PATHS.codehostCallback, async (c) => {
    const codehostApp = deps.codehostApp;
    if (!deps.integrations.codehost.app || !codehostApp) throw notConfigured();
    // A member of the account who may not install asks its owner instead; GitHub comes back with no installation.
    if (c.req.query("setup_action") === "request")
      throw new HttpError(
        400,
        WIRE_ERRORS.invalidRequest,
        "the App's installation was requested, not made: once an owner of the account approves it, start again from the workspace's code-host install link",
      );
    const installationId = c.req.query("installation_id");
    if (!installationId || !/^[1-9][0-9]{0,19}$/.test(installationId))
      throw new HttpError(
        400,
        WIRE_ERRORS.invalidRequest,
        "this link carries no valid installation_id; start again from the workspace's code-host install link",
      );
    const user = c.get("webUser");
    const consumed = await consumeInstallState(
      deps.db,
      deps.secretBox,
      { kind: "codehost", state: c.req.query("state"), userId: user.id },
      deps.now(),
    );
    if (!consumed.ok) throw stateRefusal("codehost", consumed.refusal);
    // Still an owner or admin now, not only when the flow started.
    const membership = await requireMembership(deps, c, "codehost", consumed.workspaceId, "admin");
    const code = c.req.query("code");
    const proof = code
      ? judgeInstallationAccess(
          installationId,
          await codehostApp.listUserInstallations(code).catch(unavailable),
        )
      : ({ ok: false, reason: "no_code", detail: "none" } as const);
    if (!proof.ok) {
      logAuditEvent(deps.logger, AUDIT_EVENTS.codehostInstallRefused, {
        requestId: c.get("requestId"),
        actor: user.email,
        workspace: membership.workspaceId,
        installation: installationId,
        reason: proof.reason,
      });
      const refusal = refusalOf(installationId, proof.reason, proof.detail);
      throw new HttpError(
        refusal.status,
        refusal.status === 403 ? WIRE_ERRORS.forbidden : WIRE_ERRORS.invalidRequest,
        refusal.message,
      );
    }
    const installation = await codehostApp.getInstallation(installationId).catch(unavailable);
    const repos = await codehostApp.listInstallationRepos(installationId).catch(unavailable);
    try {
      await deps.db.transaction(async () => {
        const recorded = await recordInstallation(
          deps.db,
          { installationId, workspaceId: membership.workspaceId, accountLogin: installation.accountLogin },
          deps.now(),
        );
        await setInstallationRepos(deps.db, recorded, repos);
      });
    } catch (error) {
      if (error instanceof InstallationElsewhereError)
        throw new HttpError(
          409,
          WIRE_ERRORS.conflict,
          `the App's installation on ${installation.accountLogin} is connected to another workspace; an owner of that workspace removes it there first (or uninstall the App on the code host and install it again for ${membership.workspaceName})`,
        );
      throw error;
    }
    logAuditEvent(deps.logger, AUDIT_EVENTS.codehostInstalled, {
      requestId: c.get("requestId"),
      actor: user.email,
      workspace: membership.workspaceId,
      installation: installationId,
      account: installation.accountLogin,
      repositories: repos.length,
    });
    return c.html(
      renderPage({
        title: "Code host connected",
        user,
        body: html`<p>${membership.workspaceName} is connected to ${installation.accountLogin}'s installation of the App.</p>
<p>Repositories enabled (${String(repos.length)}):</p><ul>${repos.map((r) => html`<li>${r}</li>`)}</ul>`,
      }),
      200,
    );
  });
}

function unavailable(error: unknown): never {
  throw new HttpError(
    502,
    WIRE_ERRORS.internal,
    `the code host could not be read (${(error as Error).message}); try the install link again in a few minutes`,
  );
}
