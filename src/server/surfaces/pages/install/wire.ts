// The install flows' paths (reference section 4, "Other routes"): absolute, as a browser and the platforms see
// them. `?workspace=<id>` names the workspace an install or identity link is for.
export const INSTALL_BASE = "/install";

export const INSTALL_PATHS = {
  codehost: `${INSTALL_BASE}/codehost`,
  codehostCallback: `${INSTALL_BASE}/codehost/callback`,
  tracker: `${INSTALL_BASE}/tracker`,
  trackerCallback: `${INSTALL_BASE}/tracker/callback`,
} as const;

/** The query parameter naming the workspace on the start routes. */
export const WORKSPACE_PARAM = "workspace";
