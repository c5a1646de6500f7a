import { describe, expect, it } from "vitest";
import type { LocalFiles } from "../../../../src/activation/index.js";
import { createProgressReporter } from "../../../../src/cli/commands/env/progress.js";
import { renderStartupSteps } from "../../../../src/cli/commands/env/render-activation.js";
import type { SavedHandoff } from "../../../../src/handoff/index.js";
import { buildManagedStartup } from "../../../../src/server/domain/operations/managed-startup.js";

describe("progress on stderr: state changes and elapsed time, at most one line every few seconds", () => {
  it("prints nothing for a quick activation", () => {
    const lines: string[] = [];
    const progress = createProgressReporter("op_1", { write: (l) => lines.push(l) });
    progress.update("pending", 0);
    progress.update("running", 200);
    progress.update("succeeded", 900);
    expect(lines).toEqual([]);
  });

  it("prints a state change once 3 s have passed, and a heartbeat after 20 s, never closer than 3 s", () => {
    const lines: string[] = [];
    const progress = createProgressReporter("op_1", { write: (l) => lines.push(l) });
    const script: [Parameters<typeof progress.update>[0], number][] = [
      ["pending", 0],
      ["running", 3_100],
      ["running", 10_000],
      ["running", 23_200],
      ["pending", 24_000],
      ["pending", 26_300],
      ["running", 27_000],
    ];
    for (const [state, at] of script) progress.update(state, at);
    expect(lines).toEqual([
      "baton: operation op_1 running (3.1 s)",
      "baton: operation op_1 running (23 s)",
      "baton: operation op_1 pending (26 s)",
    ]);
  });
});

const base: SavedHandoff = {
  schemaVersion: 1,
  repository: "acme/api",
  operationId: "op_1",
  overlayRevision: 2,
  savedAt: "2026-01-01T00:00:00.000Z",
  checkoutPath: "/h/checkouts/acme/api",
  managedStartup: {
    state: "available",
    owner: "agent",
    versionId: "v1",
    repository: "acme/api",
    dockerfilePath: "/h/checkouts/acme/api/Dockerfile",
    dockerfileStatus: "not_applied",
    agentInstructionsPath: "/h/checkouts/acme/api/AGENTS.md",
    startupScriptPath: "/h/checkouts/acme/api/start.sh",
    runPath: "/h/.baton/runner/baton-runner.cjs",
    evidencePath: "/h/.baton/evidence/acme__api.json",
    readiness: { checks: [] },
    disclosure: null,
  },
};
const files: LocalFiles = {
  environmentFile: "/h/.baton/environment.sh",
  handoffFile: "/h/.baton/handoffs/acme__api.json",
  checkoutPath: "/h/checkouts/acme/api",
  runner: { installed: true, path: "/h/.baton/runner/baton-runner.cjs" },
};

describe("startup steps follow the reference's Startup rules", () => {
  it("an available handoff: verify, apply the Dockerfile, source, run the runner (never the script), read instructions, disclose", () => {
    const steps = renderStartupSteps(base, files);
    expect(steps).toHaveLength(6);
    expect(steps[0]).toMatch(/^cd \/h\/checkouts\/acme\/api and verify it is acme\/api/);
    expect(steps[1]).toMatch(/^baton dockerfile apply acme\/api/);
    expect(steps[2]).toMatch(/^\. ~\/\.baton\/environment\.sh/);
    expect(steps[3]).toMatch(
      /^node \/h\/\.baton\/runner\/baton-runner\.cjs --repo acme\/api .*never run \/h\/checkouts\/acme\/api\/start\.sh directly/,
    );
    expect(steps[4]).toMatch(/^Read \/h\/checkouts\/acme\/api\/AGENTS\.md/);
    expect(steps[5]).toMatch(/^baton disclose acme\/api/);
  });

  it("a Dockerfile an older worker already applied is not applied again", () => {
    const applied = {
      ...base,
      managedStartup: { ...base.managedStartup!, dockerfileStatus: "applied" as const },
    };
    const steps = renderStartupSteps(applied, files);
    expect(steps.join("\n")).not.toContain("baton dockerfile apply");
    expect(steps[1]).toMatch(/already applied/);
  });

  it("no Dockerfile: no Dockerfile step", () => {
    const none = { ...base, managedStartup: { ...base.managedStartup!, dockerfilePath: null } };
    const text = renderStartupSteps(none, files).join("\n");
    expect(text).not.toContain("baton dockerfile apply");
    expect(text).not.toContain("already applied");
    expect(renderStartupSteps(none, files)).toHaveLength(5);
  });

  it("a missing runner bundle is said, not hidden", () => {
    const steps = renderStartupSteps(base, {
      ...files,
      runner: { installed: false, reason: "bundle missing" },
    });
    expect(steps[3]).toContain("NOT installed: bundle missing");
  });

  it("delivery_failed carries the disclosure instead of a runnable path", () => {
    const failed: SavedHandoff = {
      ...base,
      managedStartup: {
        ...base.managedStartup!,
        state: "delivery_failed",
        dockerfilePath: null,
        agentInstructionsPath: null,
        startupScriptPath: null,
        runPath: null,
        evidencePath: null,
        disclosure: "could not be delivered: bad path.",
      },
    };
    const text = renderStartupSteps(failed, { ...files, runner: null }).join("\n");
    expect(text).toContain("No managed startup (delivery_failed): could not be delivered: bad path.");
    expect(text).not.toMatch(/^node /m);
  });

  it("a repository without an environment: the service's disclosure once, and no second 'disclose this'", () => {
    const unavailable = { ...base, managedStartup: buildManagedStartup("acme/api", undefined) };
    const text = renderStartupSteps(unavailable, { ...files, runner: null }).join("\n");
    expect(text.split(unavailable.managedStartup.disclosure!)).toHaveLength(2);
    expect(text).not.toMatch(/Disclose this/i);
    expect(text).toContain("baton disclose acme/api");
  });

  it("a result without a handoff still says what to do", () => {
    const text = renderStartupSteps({ ...base, managedStartup: null }, { ...files, runner: null }).join("\n");
    expect(text).toContain("No managed startup handoff came with this activation");
    expect(text).toContain(". ~/.baton/environment.sh");
  });
});
