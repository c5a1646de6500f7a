import { describe, expect, it } from "vitest";
import {
  buildManagedStartup,
  checkBatonPath,
  checkCheckoutPath,
  type EnvironmentVersion,
} from "../../../src/server/domain/operations/managed-startup.js";
import { ManagedStartupSchema } from "../../../src/transport/wire.js";

const version: EnvironmentVersion = {
  versionId: "v7",
  dockerfilePath: "Dockerfile",
  agentInstructionsPath: "AGENTS.md",
  startupScriptPath: "scripts/start.sh",
  runPath: null,
  evidencePath: null,
  readiness: { checks: [{ kind: "tcp", host: "127.0.0.1", port: 5432, deadlineSeconds: 10 }] },
  startupTimeoutSeconds: 90,
};

describe("buildManagedStartup", () => {
  it("a version with a startup script is `available` with checkout-relative paths, not_applied, owner agent", () => {
    const handoff = ManagedStartupSchema.parse(buildManagedStartup("acme/api", version));
    expect(handoff).toEqual({
      state: "available",
      owner: "agent",
      versionId: "v7",
      repository: "acme/api",
      dockerfilePath: "Dockerfile",
      dockerfileStatus: "not_applied",
      agentInstructionsPath: "AGENTS.md",
      startupScriptPath: "scripts/start.sh",
      runPath: "~/.baton/runner/baton-runner.cjs",
      evidencePath: "~/.baton/evidence/acme__api.json",
      readiness: version.readiness,
      startupTimeoutSeconds: 90,
      disclosure: null,
    });
  });

  it("a version's own runPath and evidencePath are handed over instead of the defaults", () => {
    const handoff = ManagedStartupSchema.parse(
      buildManagedStartup("acme/api", {
        ...version,
        runPath: "~/.baton/tools/runner-v2.cjs",
        evidencePath: "~/.baton/evidence/custom/api.json",
      }),
    );
    expect(handoff).toMatchObject({
      state: "available",
      runPath: "~/.baton/tools/runner-v2.cjs",
      evidencePath: "~/.baton/evidence/custom/api.json",
      disclosure: null,
    });
  });

  it.each([
    ["no environment version", undefined, "unavailable", "none"],
    ["a version without a startup script", { ...version, startupScriptPath: null }, "unavailable", "v7"],
    [
      "an absolute startup script path",
      { ...version, startupScriptPath: "/etc/start.sh" },
      "delivery_failed",
      "v7",
    ],
    [
      "a Dockerfile path leaving the checkout",
      { ...version, dockerfilePath: "../Dockerfile" },
      "delivery_failed",
      "v7",
    ],
    [
      "agent instructions under ~",
      { ...version, agentInstructionsPath: "~/AGENTS.md" },
      "delivery_failed",
      "v7",
    ],
    ["a stored runPath outside ~/.baton", { ...version, runPath: "~/.bashrc" }, "delivery_failed", "v7"],
    [
      "a stored evidencePath climbing out of ~/.baton",
      { ...version, evidencePath: "~/.baton/../.ssh/authorized_keys" },
      "delivery_failed",
      "v7",
    ],
  ] as const)("%s gives %s with a disclosure and no runnable paths", (_label, input, state, versionId) => {
    const handoff = ManagedStartupSchema.parse(buildManagedStartup("acme/api", input));
    expect(handoff.state).toBe(state);
    expect(handoff.versionId).toBe(versionId);
    expect(handoff.disclosure).toContain("acme/api");
    for (const path of [
      handoff.dockerfilePath,
      handoff.startupScriptPath,
      handoff.runPath,
      handoff.evidencePath,
      handoff.agentInstructionsPath,
    ]) {
      expect(path).toBeNull();
    }
  });
});

describe("checkBatonPath", () => {
  it.each(["~/.baton/runner/baton-runner.cjs", "~/.baton/evidence/acme__api.json", "~/.baton/x"])(
    "accepts %s",
    (path) => {
      expect(checkBatonPath(path)).toBeUndefined();
    },
  );
  it.each([
    "~/.baton/",
    "~/.baton",
    "~/.batonx/r.cjs",
    "/home/u/.baton/r.cjs",
    ".baton/r.cjs",
    "~/.baton/../r.cjs",
    "~/.baton/a/../../r.cjs",
    "~/.baton//r.cjs",
    "~/.baton/a\\r.cjs",
    "~/.baton/r\n.cjs",
    "~/.baton/r\u007f.cjs",
  ])("refuses %j", (path) => {
    expect(checkBatonPath(path)).toBeTypeOf("string");
  });
});

describe("checkCheckoutPath", () => {
  it.each(["Dockerfile", "scripts/start.sh", "a/b/c.md", ".baton/start"])("accepts %s", (path) => {
    expect(checkCheckoutPath(path)).toBeUndefined();
  });
  it.each(["/abs", "~/x", "../x", "a/../../x", "a//b", "a\\b", "a\nb", "a/"])("refuses %j", (path) => {
    expect(checkCheckoutPath(path)).toBeTypeOf("string");
  });
});
