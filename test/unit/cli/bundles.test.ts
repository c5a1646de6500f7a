// The CLI's command bundles (scripts/bundle-cli.mjs) load no service code, but for the commands that run the
// service: the client commands know the public API's wire (bundled in), the sandbox commands the operations
// transport, `baton admin` the admin API's wire. A `../server/` in a bundle is a runtime load of tsc's service
// output. Read from the build the test set-up made (test/helpers/global-setup.ts).
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../helpers/cli.js";

const BUNDLES = join(PROJECT_ROOT, "dist", "src", "bundle");

/** The bundles that load the service, and why. */
const RUN_THE_SERVICE: Record<string, string> = {
  "serve.cjs": "`baton serve` is the service",
  "admin-migrate-store.cjs": "`baton admin migrate-store` opens both stores with the service's migrations",
  "admin-prune-sandboxes.cjs":
    "`baton admin prune-sandboxes` runs the service's sandbox drivers on a stopped service's state folder",
  "env-test-service.cjs": "`baton env test`'s throwaway service, bundled whole on purpose (its own bundle)",
};

const bundles = readdirSync(BUNDLES).filter((name) => name.endsWith(".cjs"));

describe("command bundles load no service code", () => {
  it("finds the client, sandbox and admin commands' bundles", () => {
    expect(bundles).toEqual(
      expect.arrayContaining(["start.cjs", "show.cjs", "env-activate.cjs", "admin-turn.cjs"]),
    );
  });

  it.each(bundles.filter((name) => !(name in RUN_THE_SERVICE)))(
    "%s loads nothing from ../server/",
    (name) => {
      const source = readFileSync(join(BUNDLES, name), "utf8");
      expect(source.match(/["']\.\.\/server\/[^"']+["']/g) ?? []).toEqual([]);
    },
  );

  it("the check sees a load of the service where there is one (serve.cjs)", () => {
    expect(readFileSync(join(BUNDLES, "serve.cjs"), "utf8")).toMatch(/["']\.\.\/server\/serve\.js["']/);
  });
});
