// Per-version runner and evidence paths (`~/.baton/...`). NULL keeps the built-in defaults (RUNNER_RUN_PATH and
// evidencePathFor in the wire contract), so every version stored before this migration hands over what it did.
import type { Migration } from "./index.js";

export const environmentVersionBatonPaths: Migration = {
  version: 21,
  name: "environment-version-baton-paths",
  async up(m) {
    await m.exec(`
ALTER TABLE environment_versions ADD COLUMN run_path TEXT;
ALTER TABLE environment_versions ADD COLUMN evidence_path TEXT;
`);
  },
};
