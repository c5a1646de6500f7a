// The turn-requests file both ways (src/agent-tools/turn-requests.ts): a call rendered as one JSON line, and a
// turn's lines summed up for the service, the last call of each tool winning and malformed lines counted.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AGENT_TOOLS_LIMITS,
  type AgentToolCall,
  readTurnRequests,
  renderTurnRequest,
} from "../../../src/agent-tools/index.js";

const AT = new Date("2026-11-28T09:15:02.113Z");
const line = (call: AgentToolCall) => renderTurnRequest(call, AT);

describe("renderTurnRequest", () => {
  it("writes one JSON line with the tool's name, the time in UTC and the arguments; draft defaults to false", () => {
    expect(line({ tool: "ask_user", input: { question: "Which database?" } })).toBe(
      '{"tool":"ask_user","at":"2026-11-28T09:15:02.113Z","question":"Which database?"}\n',
    );
    expect(line({ tool: "open_pull_request", input: { title: "Fix the parser" } })).toBe(
      '{"tool":"open_pull_request","at":"2026-11-28T09:15:02.113Z","title":"Fix the parser","draft":false}\n',
    );
  });

  it("keeps a body's line breaks inside the one line (JSON escapes them)", () => {
    const rendered = line({
      tool: "open_pull_request",
      input: { title: "t", body: "a\nb\r\n\u2028c", draft: true },
    });
    expect(rendered.split("\n")).toHaveLength(2);
    expect(readTurnRequests(rendered).pullRequest).toEqual({
      title: "t",
      body: "a\nb\r\n\u2028c",
      draft: true,
    });
  });

  it("refuses a call out of its limits rather than writing a line the reader would skip", () => {
    expect(() =>
      line({ tool: "ask_user", input: { question: "x".repeat(AGENT_TOOLS_LIMITS.questionChars + 1) } }),
    ).toThrow();
  });
});

describe("open_pull_request's checks", () => {
  const checks = [
    { name: "npm test", result: "not_run" as const, note: "needs postgres" },
    { name: "npm run lint", result: "passed" as const },
  ];

  it("are kept in the line and read back as the agent reported them, for `baton disclose --check`", () => {
    const rendered = line({ tool: "open_pull_request", input: { title: "Fix", checks } });
    expect(readTurnRequests(rendered)).toEqual({
      pullRequest: { title: "Fix", draft: false, checks },
      skipped: 0,
    });
  });

  it.each([
    ["a name with '=' (the flag could not carry it)", { name: "a=b", result: "passed" }],
    ["a name over two lines", { name: "npm\ntest", result: "passed" }],
    ["a result that is not passed, failed or not_run", { name: "npm test", result: "skipped" }],
    ["a note over two lines", { name: "npm test", result: "failed", note: "a\nb" }],
    ["an empty name", { name: " ", result: "passed" }],
  ])("a record with %s is skipped", (_, check) => {
    const record = {
      tool: "open_pull_request",
      at: AT.toISOString(),
      title: "t",
      draft: false,
      checks: [check],
    };
    expect(readTurnRequests(`${JSON.stringify(record)}\n`)).toEqual({ skipped: 1 });
  });

  it(`refuses more than ${AGENT_TOOLS_LIMITS.checks} checks`, () => {
    const many = Array.from({ length: AGENT_TOOLS_LIMITS.checks + 1 }, (_, i) => ({
      name: `check ${i}`,
      result: "passed" as const,
    }));
    expect(() => line({ tool: "open_pull_request", input: { title: "t", checks: many } })).toThrow();
  });
});

describe("readTurnRequests", () => {
  const ask = (question: string) => line({ tool: "ask_user", input: { question } });
  const pr = (title: string, extra: { body?: string; draft?: boolean } = {}) =>
    line({ tool: "open_pull_request", input: { title, ...extra } });

  it.each([
    ["an empty file asks nothing", "", { skipped: 0 }],
    ["blank lines are not malformed", "\n\n  \n", { skipped: 0 }],
    [
      "ask_user gives clarify",
      ask("Which database?"),
      { clarify: { question: "Which database?" }, skipped: 0 },
    ],
    [
      "open_pull_request gives pullRequest with draft false by default and no body",
      pr("Fix it"),
      { pullRequest: { title: "Fix it", draft: false }, skipped: 0 },
    ],
    [
      "the last call of each tool wins",
      ask("first?") + pr("one", { body: "b1", draft: true }) + ask("second?") + pr("two"),
      { clarify: { question: "second?" }, pullRequest: { title: "two", draft: false }, skipped: 0 },
    ],
    [
      "a last line without its newline (a writer cut short) still counts when whole",
      ask("cut?").trimEnd(),
      { clarify: { question: "cut?" }, skipped: 0 },
    ],
  ])("%s", (_rule, text, expected) => {
    expect(readTurnRequests(text)).toEqual(expected);
  });

  it.each([
    ["not JSON", "not json"],
    ["half a line", ask("q").slice(0, 20)],
    ["an unknown tool", '{"tool":"rm_rf","at":"2026-11-28T09:15:02.113Z"}'],
    ["no time", '{"tool":"ask_user","question":"q"}'],
    ["a time that is not ISO 8601 UTC", '{"tool":"ask_user","at":"yesterday","question":"q"}'],
    ["an empty question", '{"tool":"ask_user","at":"2026-11-28T09:15:02.113Z","question":"  "}'],
    [
      "a question over 10,000 characters",
      JSON.stringify({ tool: "ask_user", at: AT.toISOString(), question: "q".repeat(10_001) }),
    ],
    [
      "a title over 200 characters",
      JSON.stringify({
        tool: "open_pull_request",
        at: AT.toISOString(),
        title: "t".repeat(201),
        draft: false,
      }),
    ],
    [
      "a title of two lines",
      JSON.stringify({ tool: "open_pull_request", at: AT.toISOString(), title: "a\nb", draft: false }),
    ],
    [
      "a body over 60,000 characters",
      JSON.stringify({
        tool: "open_pull_request",
        at: AT.toISOString(),
        title: "t",
        body: "b".repeat(60_001),
        draft: false,
      }),
    ],
    ["draft missing", JSON.stringify({ tool: "open_pull_request", at: AT.toISOString(), title: "t" })],
    ["a JSON array", "[1,2]"],
    ["JSON null", "null"],
  ])("skips and counts a malformed line: %s", (_what, bad) => {
    expect(readTurnRequests(`${ask("kept?")}${bad}\n${pr("kept")}`)).toEqual({
      clarify: { question: "kept?" },
      pullRequest: { title: "kept", draft: false },
      skipped: 1,
    });
  });

  it("a malformed line never overrides an earlier valid call of its tool", () => {
    const bad = JSON.stringify({ tool: "ask_user", at: AT.toISOString(), question: "" });
    expect(readTurnRequests(`${ask("valid?")}${bad}\n`)).toEqual({
      clarify: { question: "valid?" },
      skipped: 1,
    });
  });

  it("drops fields a record does not have (the file is the agent's to write as well)", () => {
    const extra = JSON.stringify({
      tool: "ask_user",
      at: AT.toISOString(),
      question: "q?",
      kind: "response",
    });
    expect(readTurnRequests(extra)).toEqual({ clarify: { question: "q?" }, skipped: 0 });
  });

  it("property: reading rendered calls gives back the last call of each tool, with nothing skipped", () => {
    const text = fc.string({ minLength: 1, maxLength: 200, unit: "grapheme" }).filter((s) => s.trim() !== "");
    const call: fc.Arbitrary<AgentToolCall> = fc.oneof(
      fc.record({ tool: fc.constant("ask_user" as const), input: fc.record({ question: text }) }),
      fc.record({
        tool: fc.constant("open_pull_request" as const),
        input: fc.record(
          {
            title: text.filter((s) => !/[\r\n]/.test(s)),
            body: fc.string({ maxLength: 300 }),
            draft: fc.boolean(),
          },
          { requiredKeys: ["title"] },
        ),
      }),
    );
    fc.assert(
      fc.property(fc.array(call, { maxLength: 8 }), (calls) => {
        const summary = readTurnRequests(calls.map(line).join(""));
        const lastAsk = calls.findLast((c) => c.tool === "ask_user");
        const lastPr = calls.findLast((c) => c.tool === "open_pull_request");
        expect(summary.skipped).toBe(0);
        expect(summary.clarify).toEqual(
          lastAsk?.tool === "ask_user" ? { question: lastAsk.input.question.trim() } : undefined,
        );
        expect(summary.pullRequest).toEqual(
          lastPr?.tool === "open_pull_request"
            ? {
                title: lastPr.input.title.trim(),
                ...(lastPr.input.body === undefined ? {} : { body: lastPr.input.body }),
                draft: lastPr.input.draft ?? false,
              }
            : undefined,
        );
      }),
    );
  });
});
