// Applies an overlay inside the sandbox: render environment.sh and write it atomically into ~/.baton.
// Shared by `baton env apply` and `baton env activate`.
import type { SandboxPaths } from "../config/sandbox.js";
import { type Overlay, type ProxySettings, renderEnvironmentFile } from "../envfile/index.js";
import { writeFileAtomicSync } from "../safefs/index.js";

export interface AppliedVariable {
  repository: string;
  name: string;
  assigned: string;
  source: "sandbox.env" | "secret";
}

export interface AppliedOverlay {
  path: string;
  revision: number;
  /** The mapping of original to assigned names, in overlay order. Never values. */
  variables: AppliedVariable[];
}

/** Renders first, so an overlay that cannot be rendered leaves every file as it was. */
export async function applyOverlay(input: {
  overlay: Overlay;
  paths: Pick<SandboxPaths, "home" | "batonDir" | "environmentFile">;
  /** The egress proxy's settings (prepareProxySettings), written after the variables. */
  proxy?: ProxySettings | null;
}): Promise<AppliedOverlay> {
  const { overlay, paths } = input;
  const content = renderEnvironmentFile(overlay, input.proxy ?? null);
  writeFileAtomicSync(paths.batonDir, paths.environmentFile, content, { mode: 0o600 });
  return {
    path: paths.environmentFile,
    revision: overlay.revision,
    variables: listAppliedVariables(overlay),
  };
}

export function listAppliedVariables(overlay: Overlay): AppliedVariable[] {
  return overlay.repositories.flatMap((repo) =>
    repo.variables.map(({ name, assigned, source }) => ({
      repository: repo.repository,
      name,
      assigned,
      source,
    })),
  );
}
