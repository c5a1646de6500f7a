// The host's side of `baton env rehearse`, against real child processes standing in for the in-box command (a box
// is not needed to test how the lines are read; test/container/env-test.test.ts runs the real one in real boxes).
import { describe, expect, it } from "vitest";
import { spawnStreaming } from "../../../src/server/adapters/processes/streaming-process.js";
import { rehearseInBox } from "../../../src/server/env-test-rehearsal.js";

const node = process.execPath;

function fakeRehearsal(script: string) {
  return () =>
    spawnStreaming([node, "-e", script], { cwd: process.cwd(), env: { PATH: process.env.PATH ?? "" } });
}

const say = (line: object) => `process.stdout.write(${JSON.stringify(`${JSON.stringify(line)}\n`)});`;

describe("rehearseInBox", () => {
  it("shows each step as it starts, and lets the host act before the disclosure starts", async () => {
    // The fake waits for the host's line before it discloses, as the real one does.
    const script = [
      say({ started: "activate" }),
      say({ step: "activate", ok: true, durationMs: 5 }),
      say({ started: "dockerfile" }),
      say({ step: "dockerfile", ok: true, durationMs: 1 }),
      say({ started: "startup" }),
      say({ step: "startup", ok: true, durationMs: 2, output: { outcome: "succeeded" } }),
      `process.stdin.once("data", () => { ${say({ started: "disclose" })} ${say({ step: "disclose", ok: true, durationMs: 1, output: { markdown: "# d" } })} process.exit(0); });`,
    ].join("\n");
    const events: string[] = [];
    const outcomes = await rehearseInBox({
      start: fakeRehearsal(script),
      silenceLimitMs: 30_000,
      onStarted: (step) => events.push(`started ${step}`),
      beforeDisclose: async () => {
        events.push("flushed");
      },
    });
    expect(events).toEqual([
      "started activate",
      "started dockerfile",
      "started startup",
      "flushed",
      "started disclose",
    ]);
    expect(outcomes.map((o) => `${o.step}:${o.ok}`)).toEqual([
      "activate:true",
      "dockerfile:true",
      "startup:true",
      "disclose:true",
    ]);
    expect(outcomes[3]!.output).toEqual({ markdown: "# d" });
  });

  it("fails the step it was in when the rehearsal ends early, naming the exit and its last words", async () => {
    const script = [
      say({ started: "activate" }),
      say({ step: "activate", ok: true, durationMs: 5 }),
      say({ started: "dockerfile" }),
      `process.stderr.write("baton: something broke\\n"); process.exit(7);`,
    ].join("\n");
    const outcomes = await rehearseInBox({
      start: fakeRehearsal(script),
      silenceLimitMs: 30_000,
      onStarted: () => undefined,
      beforeDisclose: async () => undefined,
    });
    expect(outcomes.map((o) => `${o.step}:${o.ok}`)).toEqual(["activate:true", "dockerfile:false"]);
    expect(outcomes[1]!.detail).toBe(
      "baton env rehearse ended (exit 7) during dockerfile: baton: something broke",
    );
  });

  it("fails the first step when the box has no rehearsal to run (an older image)", async () => {
    const outcomes = await rehearseInBox({
      start: fakeRehearsal(`process.stderr.write("error: unknown command 'rehearse'\\n"); process.exit(2);`),
      silenceLimitMs: 30_000,
      onStarted: () => undefined,
      beforeDisclose: async () => undefined,
    });
    expect(outcomes).toEqual([
      expect.objectContaining({
        step: "activate",
        ok: false,
        detail: "baton env rehearse ended (exit 2) during activate: error: unknown command 'rehearse'",
      }),
    ]);
  });

  it("stops a rehearsal that says nothing for longer than its limit", async () => {
    const script = [say({ started: "activate" }), "setInterval(() => {}, 1000);"].join("\n");
    const outcomes = await rehearseInBox({
      start: fakeRehearsal(script),
      silenceLimitMs: 300,
      onStarted: () => undefined,
      beforeDisclose: async () => undefined,
    });
    expect(outcomes).toEqual([
      expect.objectContaining({ step: "activate", ok: false, detail: "stopped after 0 s without progress" }),
    ]);
  });
});
