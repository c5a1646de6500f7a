import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError, UnsafePathError } from "../../../src/errors.js";
import { parseManagedStartup, resolveHandoffPathLexically } from "../../../src/handoff/index.js";
import { ActivationResultSchema, ManagedStartupSchema } from "../../../src/transport/wire.js";
import { PROJECT_ROOT } from "../../helpers/cli.js";

function fixture(name: string) {
  const raw = JSON.parse(readFileSync(join(PROJECT_ROOT, "fixtures", "handoffs", `${name}.json`), "utf8"));
  return ActivationResultSchema.parse(raw);
}

describe("managedStartup: current and older shapes all come out in the current shape", () => {
  it("the current shape passes through unchanged", () => {
    const result = fixture("current-available");
    const handoff = parseManagedStartup(result.managedStartup, "acme/api");
    expect(handoff).toEqual(result.managedStartup);
    expect(ManagedStartupSchema.parse(handoff)).toEqual(handoff);
  });

  it("the client also accepts `applied` from older workers", () => {
    const handoff = parseManagedStartup(fixture("legacy-applied").managedStartup, "acme/api");
    expect(handoff?.dockerfileStatus).toBe("applied");
  });

  it("older results may omit dockerfilePath and dockerfileStatus: no Dockerfile, not applied", () => {
    const handoff = parseManagedStartup(fixture("legacy-no-dockerfile-fields").managedStartup, "acme/api");
    expect(handoff?.dockerfilePath).toBeNull();
    expect(handoff?.dockerfileStatus).toBe("not_applied");
    expect(handoff?.runPath).toBe("~/.baton/runner/baton-runner.cjs");
  });

  it("older results may omit the handoff altogether", () => {
    expect(parseManagedStartup(fixture("legacy-no-handoff").managedStartup, "acme/api")).toBeNull();
  });

  it("delivery_failed carries a disclosure instead of runnable paths", () => {
    const handoff = parseManagedStartup(fixture("current-delivery-failed").managedStartup, "acme/api");
    expect(handoff?.state).toBe("delivery_failed");
    expect(handoff?.disclosure).toMatch(/could not be delivered/);
    expect(handoff?.runPath).toBeNull();
  });

  it("an unavailable handoff from an older worker that left paths in has them dropped and gains a disclosure", () => {
    const raw = {
      ...(fixture("legacy-applied").managedStartup as object),
      state: "unavailable",
      disclosure: undefined,
    };
    const handoff = parseManagedStartup(raw, "acme/api");
    expect(handoff?.startupScriptPath).toBeNull();
    expect(handoff?.dockerfilePath).toBeNull();
    expect(handoff?.disclosure).toBe("the startup handoff is unavailable");
  });

  it("a handoff for another repository is refused", () => {
    expect(() => parseManagedStartup(fixture("current-available").managedStartup, "acme/web")).toThrow(
      InputError,
    );
  });

  it("a malformed handoff names the field", () => {
    expect(() => parseManagedStartup({ versionId: "" }, "acme/api")).toThrow(/versionId/);
  });
});

describe("path rules", () => {
  const checkout = { kind: "checkout", dir: "/home/agent/checkouts/acme/api" } as const;
  const baton = { kind: "baton", dir: "/home/agent/.baton" } as const;

  it.each([
    ["Dockerfile", "/home/agent/checkouts/acme/api/Dockerfile"],
    ["docker/Dockerfile.dev", "/home/agent/checkouts/acme/api/docker/Dockerfile.dev"],
    ["./AGENTS.md", "/home/agent/checkouts/acme/api/AGENTS.md"],
    ["/home/agent/checkouts/acme/api/scripts/start.sh", "/home/agent/checkouts/acme/api/scripts/start.sh"],
  ])("checkout path %s resolves to %s", (value, expected) => {
    expect(resolveHandoffPathLexically("startupScriptPath", value, checkout)).toBe(expected);
  });

  it.each([
    ["../other/start.sh", "contains '..'"],
    ["scripts/../../x", "contains '..'"],
    ["/etc/passwd", "leaves the checkout"],
    ["/home/agent/checkouts/acme/api-evil/x", "leaves the checkout"],
    ["~/.bashrc", "relative to the checkout"],
    [".", "leaves the checkout"],
  ])("checkout path %s is refused (%s)", (value, why) => {
    expect(() => resolveHandoffPathLexically("startupScriptPath", value, checkout)).toThrow(UnsafePathError);
    expect(() => resolveHandoffPathLexically("startupScriptPath", value, checkout)).toThrow(why);
  });

  it.each([
    ["~/.baton/runner/baton-runner.cjs", "/home/agent/.baton/runner/baton-runner.cjs"],
    ["/home/agent/.baton/evidence/acme__api.json", "/home/agent/.baton/evidence/acme__api.json"],
  ])("baton path %s resolves to %s", (value, expected) => {
    expect(resolveHandoffPathLexically("runPath", value, baton)).toBe(expected);
  });

  it.each([
    ["~/.baton/../.bashrc", "contains '..'"],
    ["runner/baton-runner.cjs", "must start with ~/.baton/"],
    ["~/elsewhere/run.cjs", "must start with ~/.baton/"],
    ["/tmp/run.cjs", "leaves ~/.baton"],
    ["~/.baton/", "leaves ~/.baton"],
  ])("baton path %s is refused (%s)", (value, why) => {
    expect(() => resolveHandoffPathLexically("runPath", value, baton)).toThrow(why);
  });
});
