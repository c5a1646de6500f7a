// The one reader of `baton env rehearse`'s lines, for the streaming host (a throwaway box) and the one that gets
// them all at the end (`baton env test --serve`, through the admin exec): which step ran, which ended, and the
// step it ended in when the rehearsal stopped early.
import { describe, expect, it } from "vitest";
import { RehearsalReader, readRehearsalOutput } from "../../../src/envtest/rehearsal-reader.js";
import type { EnvTestResult } from "../../../src/server/env-test-result.js";
import { recordRehearsal } from "../../../src/server/env-test-result.js";

const lines = (...objects: object[]) => objects.map((o) => JSON.stringify(o)).join("\n");
const all = lines(
  { started: "activate" },
  { step: "activate", ok: true, durationMs: 5 },
  { started: "dockerfile" },
  { step: "dockerfile", ok: true, durationMs: 1 },
  { started: "startup" },
  { step: "startup", ok: true, durationMs: 2, output: { outcome: "succeeded" } },
  { started: "disclose" },
  { step: "disclose", ok: true, durationMs: 1, output: { markdown: "# disclosure" } },
);

describe("RehearsalReader", () => {
  it("reads every step's outcome and has no unfinished step when the last one reported", () => {
    const reader = readRehearsalOutput(`${all}\n`);
    expect(reader.outcomes.map((o) => `${o.step}:${o.ok}`)).toEqual([
      "activate:true",
      "dockerfile:true",
      "startup:true",
      "disclose:true",
    ]);
    expect(reader.unfinished()).toBeNull();
    expect(reader.finish(() => "never asked", 9)).toEqual(reader.outcomes);
  });

  it.each([
    ["nothing at all", "", "activate"],
    ["a line that is not the rehearsal's", "npm WARN something\n{not json", "activate"],
    [
      "a step that started and never reported",
      lines(
        { started: "activate" },
        { step: "activate", ok: true, durationMs: 5 },
        { started: "dockerfile" },
      ),
      "dockerfile",
    ],
    ["an unknown step name", lines({ started: "deploy" }), "activate"],
  ])("reports the step it stopped in as failed, after %s", (_what, stdout, step) => {
    const reader = readRehearsalOutput(stdout);
    expect(reader.unfinished()).toBe(step);
    expect(reader.finish(() => "ended early", 12.4).at(-1)).toEqual({
      step,
      ok: false,
      durationMs: 12,
      detail: "ended early",
    });
  });

  it("returns each line parsed as it reads, null for noise", () => {
    const reader = new RehearsalReader();
    expect(reader.read('{"started":"activate"}')).toEqual({ started: "activate" });
    expect(reader.read("Debugger attached.")).toBeNull();
    expect(reader.current).toBe("activate");
  });

  it("fills the result's steps, evidence and disclosure the same way for both hosts", () => {
    const result = { steps: [], evidence: null, disclosure: null, ok: false } as unknown as EnvTestResult;
    recordRehearsal(result, readRehearsalOutput(all).outcomes);
    expect(result).toMatchObject({
      ok: true,
      evidence: { outcome: "succeeded" },
      disclosure: "# disclosure",
    });
    expect(result.steps).toHaveLength(4);
  });
});
