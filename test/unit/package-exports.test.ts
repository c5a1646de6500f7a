// What package.json promises to importers exists in the build (the test run's global setup builds first): an
// export pointing at a file the build does not make fails only when a user imports it.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../helpers/cli.js";

const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as {
  exports: Record<string, string>;
  bin: Record<string, string>;
};

describe("package.json exports and bin", () => {
  it.each([...Object.entries(manifest.exports), ...Object.entries(manifest.bin)])(
    "%s points at a built file",
    (_name, target) => {
      expect(existsSync(join(PROJECT_ROOT, target))).toBe(true);
    },
  );
});
