// GET /install/codehost and its callback: the code host's App installation flow. Without an App configured
// (`--codehost-app-id`) both answer a page saying so.
import type { ServerDeps } from "../../deps.js";
import { HttpError } from "../../http/http-error.js";
import type { InstallApp } from "./common.js";
import { INSTALL_PATHS } from "./wire.js";

export function addCodehostInstallRoutes(app: InstallApp, deps: ServerDeps): void {
  const notConfigured = () =>
    new HttpError(
      404,
      "not_found",
      "this service has no code-host App configured; its operator sets --codehost-app-id, --codehost-app-slug and --codehost-private-key-file",
    );
  for (const path of [INSTALL_PATHS.codehost, INSTALL_PATHS.codehostCallback])
    app.get(path, () => {
      // The configured flow is added in the issue-24 work that builds this adapter.
      if (!deps.integrations.codehost.app) throw notConfigured();
      throw notConfigured();
    });
}
