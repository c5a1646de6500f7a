import { describe, expect, it } from "vitest";
import { parseCheckFlag } from "../../../src/disclosure/checks.js";
import { renderDisclosure } from "../../../src/disclosure/render.js";
import type { DisclosureInputs } from "../../../src/disclosure/types.js";
import type { EvidenceRecord } from "../../../src/evidence/record.js";

const handoff: NonNullable<DisclosureInputs["handoff"]> = {
  schemaVersion: 1,
  repository: "acme/api",
  operationId: "op_1",
  overlayRevision: 2,
  savedAt: "2026-11-22T00:00:00.000Z",
  checkoutPath: "/home/agent/checkouts/acme/api",
  managedStartup: {
    state: "available",
    owner: "agent",
    versionId: "v7",
    repository: "acme/api",
    dockerfilePath: "/home/agent/checkouts/acme/api/Dockerfile",
    dockerfileStatus: "not_applied",
    agentInstructionsPath: null,
    startupScriptPath: "/home/agent/checkouts/acme/api/.baton/startup.sh",
    runPath: "/home/agent/.baton/runner/baton-runner.cjs",
    evidencePath: "/home/agent/.baton/evidence/acme__api.json",
    readiness: { checks: [] },
    disclosure: null,
  },
};

const evidence: EvidenceRecord = {
  schemaVersion: 1,
  repository: "acme/api",
  handoffVersionId: "v7",
  startedAt: "2026-11-22T00:00:01.000Z",
  endedAt: "2026-11-22T00:00:03.500Z",
  durationMs: 2500,
  outcome: "succeeded",
  exitCode: 0,
  signal: null,
  runnerExitStatus: 0,
  timeoutSeconds: 900,
  readiness: { status: "unknown", note: "the handoff lists no readiness checks", checks: [] },
  output: {
    bytes: 120,
    lines: 4,
    truncated: false,
    head: "RAW-OUTPUT-MUST-NOT-APPEAR",
    tail: "",
    stoppedReadingAfterExit: false,
  },
  redactions: { "secret:API_TOKEN": 1 },
  runtime: { node: "v22.0.0", shell: "bash 5.2", platform: "linux" },
  runnerError: null,
  trimmed: false,
};

const applied: DisclosureInputs["dockerfile"] = {
  versionId: "v7",
  finishedAt: "2026-11-22T00:00:00.500Z",
  status: "applied",
  steps: [
    {
      versionId: "v7",
      digest: "d1",
      index: 1,
      line: 3,
      instruction: "RUN echo a | tee b",
      action: "run",
      status: "succeeded",
      notes: [],
      startedAt: "2026-11-22T00:00:00.000Z",
      durationMs: 40,
      exitCode: 0,
      signal: null,
      outputTail: "RAW-STEP-OUTPUT-MUST-NOT-APPEAR",
      redactions: 0,
    },
  ],
};

function inputs(overrides: Partial<DisclosureInputs> = {}): DisclosureInputs {
  return {
    repository: "acme/api",
    handoff,
    dockerfile: applied,
    environmentConflicts: [],
    evidence,
    evidenceProblem: null,
    checks: [{ name: "npm test", result: "passed", note: null }],
    agentInstructions: [],
    ...overrides,
  };
}

describe("renderDisclosure (reference: 'the pull request must disclose ...')", () => {
  it("is ready for review when the Dockerfile applied, startup succeeded and every check passed", () => {
    const out = renderDisclosure(inputs());
    expect(out.draft).toBe(false);
    expect(out.markdown).toContain("Ready for review");
    expect(out.markdown).toContain("`v7`");
    expect(out.markdown).toContain("`succeeded`, exit 0, 2.5 s");
  });

  it.each([
    [
      "a required check that could not run keeps it a draft",
      { checks: [{ name: "e2e", result: "not_run", note: "no browser" }] },
      "required check `e2e` did not run",
    ],
    [
      "a failed check keeps it a draft",
      { checks: [{ name: "lint", result: "failed", note: null }] },
      "required check `lint` failed",
    ],
    ["a Dockerfile never applied keeps it a draft", { dockerfile: null }, "the Dockerfile was not applied"],
    [
      "no startup evidence keeps it a draft",
      { evidence: null, evidenceProblem: "not run" },
      "the startup runner left no evidence",
    ],
    [
      "a timed-out startup keeps it a draft",
      { evidence: { ...evidence, outcome: "timed_out" as const } },
      "startup timed out",
    ],
    [
      "a startup whose services never became ready keeps it a draft, naming the failed check",
      {
        evidence: {
          ...evidence,
          outcome: "not_ready" as const,
          runnerExitStatus: 1,
          readiness: {
            status: "not_ready" as const,
            note: "1 of 1 readiness checks failed by their deadline",
            checks: [
              {
                kind: "http" as const,
                target: "http://127.0.0.1:3000/health",
                deadlineSeconds: 30,
                ok: false,
                durationMs: 30_000,
                detail: "ECONNREFUSED",
              },
            ],
          },
        },
      },
      "startup not ready: `http http://127.0.0.1:3000/health`",
    ],
  ] as const)("%s", (_rule, overrides, reason) => {
    const out = renderDisclosure(inputs(overrides as Partial<DisclosureInputs>));
    expect(out.draft).toBe(true);
    expect(out.draftReasons).toContain(reason);
    expect(out.markdown).toContain(`**Draft:**`);
  });

  it("never includes raw output: neither the runner's head/tail nor a step's output tail", () => {
    const out = renderDisclosure(inputs());
    expect(out.markdown).not.toContain("RAW-OUTPUT-MUST-NOT-APPEAR");
    expect(out.markdown).not.toContain("RAW-STEP-OUTPUT-MUST-NOT-APPEAR");
  });

  it("escapes pipes in instructions so a table row cannot break", () => {
    expect(renderDisclosure(inputs()).markdown).toContain("RUN echo a \\| tee b");
  });

  it("discloses ENV conflicts scoped per repository", () => {
    const out = renderDisclosure(
      inputs({
        environmentConflicts: [
          {
            name: "PORT",
            assignments: [
              { repository: "acme/api", assigned: "PORT" },
              { repository: "acme/web", assigned: "REPO_WEB__PORT" },
            ],
          },
        ],
      }),
    );
    expect(out.markdown).toContain("`PORT`: acme/api → `PORT`, acme/web → `REPO_WEB__PORT`");
  });

  it("with no checks reported it says so rather than claiming they passed", () => {
    const out = renderDisclosure(inputs({ checks: [] }));
    expect(out.markdown).toContain("no required checks were reported");
    expect(out.markdown).not.toContain("every required check ran and passed");
  });

  it("no reported checks while the checkout has agent instruction files keeps it a draft, naming them", () => {
    const out = renderDisclosure(inputs({ checks: [], agentInstructions: ["AGENTS.md", "CLAUDE.md"] }));
    expect(out.draft).toBe(true);
    expect(out.draftReasons.join("\n")).toContain("no required checks were reported");
    expect(out.draftReasons.join("\n")).toContain("`AGENTS.md`, `CLAUDE.md`");
    expect(out.markdown).not.toContain("Ready for review");
  });

  it("reported checks satisfy the instruction files' demand", () => {
    const out = renderDisclosure(inputs({ agentInstructions: ["AGENTS.md"] }));
    expect(out.draft).toBe(false);
  });

  it("an unactivated repository is never ready for review", () => {
    const out = renderDisclosure(inputs({ handoff: null, dockerfile: null, evidence: null }));
    expect(out.markdown).toContain("not activated in this sandbox");
    expect(out.markdown).not.toContain("Ready for review");
    expect(out.draft).toBe(true);
  });

  it("durations use the one format: a 40 ms step is 40 ms, never 0.0 s", () => {
    expect(renderDisclosure(inputs()).markdown).toContain("| 40 ms |");
  });
});

describe("parseCheckFlag", () => {
  it.each([
    ["npm test=passed", { name: "npm test", result: "passed", note: null }],
    ["e2e=not_run:needs a browser", { name: "e2e", result: "not_run", note: "needs a browser" }],
    ["lint=failed: 3 errors ", { name: "lint", result: "failed", note: "3 errors" }],
  ])("%s", (flag, expected) => {
    expect(parseCheckFlag(flag)).toEqual(expected);
  });

  it.each(["npm test", "x=ok", "=passed"])("%s is refused with the expected form", (flag) => {
    expect(() => parseCheckFlag(flag)).toThrow(/--check must look like/);
  });
});
