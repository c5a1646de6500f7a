// The install flows' page app (public listener): the code host's App installation and the tracker's OAuth
// authorization, each a start route that redirects to the platform and a callback it redirects back to.
import type { PagesDeps } from "../deps.js";
import { addCodehostInstallRoutes } from "./codehost.js";
import { createInstallSurface } from "./common.js";
import { addTrackerInstallRoutes } from "./tracker.js";

export function createInstallApp(deps: PagesDeps) {
  const app = createInstallSurface(deps);
  addCodehostInstallRoutes(app, deps);
  addTrackerInstallRoutes(app, deps);
  return app;
}
