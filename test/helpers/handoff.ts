// The saved handoff (~/.baton/handoffs/acme__api.json) that `baton env activate` leaves behind, for tests that
// start from an activated sandbox without running a service.
import type { SavedHandoff } from "../../src/handoff/saved.js";
import type { ManagedStartup } from "../../src/transport/wire.js";

/** acme/api checked out at `checkoutPath`; `startup` overrides the managed startup's defaults. */
export function savedHandoff(checkoutPath: string, startup: Partial<ManagedStartup> = {}): SavedHandoff {
  return {
    schemaVersion: 1,
    repository: "acme/api",
    operationId: "op_1",
    overlayRevision: 1,
    savedAt: new Date().toISOString(),
    checkoutPath,
    managedStartup: {
      state: "available",
      owner: "agent",
      versionId: "v1",
      repository: "acme/api",
      dockerfilePath: null,
      dockerfileStatus: "not_applied",
      agentInstructionsPath: null,
      startupScriptPath: null,
      runPath: null,
      evidencePath: null,
      readiness: { checks: [] },
      disclosure: null,
      ...startup,
    },
  };
}
