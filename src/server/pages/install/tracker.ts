// GET /install/tracker and its callback: the tracker's OAuth authorization-code flow. Without an OAuth
// application configured (`--tracker-client-id`) both answer a page saying so.
import type { ServerDeps } from "../../deps.js";
import { HttpError } from "../../http/http-error.js";
import type { InstallApp } from "./common.js";
import { INSTALL_PATHS } from "./wire.js";

export function addTrackerInstallRoutes(app: InstallApp, deps: ServerDeps): void {
  const notConfigured = () =>
    new HttpError(
      404,
      "not_found",
      "this service has no tracker OAuth application configured; its operator sets --tracker-client-id and --tracker-client-secret-file",
    );
  for (const path of [INSTALL_PATHS.tracker, INSTALL_PATHS.trackerCallback])
    app.get(path, () => {
      // The configured flow is added in the issue-24 work that builds this adapter.
      if (!deps.integrations.tracker.oauth) throw notConfigured();
      throw notConfigured();
    });
}
