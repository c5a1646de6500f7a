// How an ACP turn ends for the task engine: the message text as the one reply, bounded to 100,000 characters; an
// empty turn or a stop reason but end_turn becomes a notice naming the agent; every text sanitised.
import { describe, expect, it } from "vitest";
import { createSanitiser } from "../../../../../../src/evidence/index.js";
import {
  type TurnOutcome,
  toTurnResult,
} from "../../../../../../src/server/adapters/agents/acp/turn-result.js";

const SECRET = "sk-canary-0f9e8d7c6b5a4f3e2d1c-never-print";
const sanitiser = createSanitiser({ secrets: [{ name: "MODEL_KEY", value: SECRET }] });
const context = { agentName: "gemini", timeoutMs: 90_000, clean: (t: string) => sanitiser.sanitise(t).text };
const ended = (stopReason: string, text: string, cut = 0): TurnOutcome => ({
  kind: "ended",
  stopReason,
  text,
  cut,
  activity: [],
});

describe("toTurnResult", () => {
  const cases: [string, TurnOutcome, object][] = [
    [
      "end_turn with text: the reply",
      ended("end_turn", "  Done.\n"),
      { kind: "reply", reply: { kind: "response", body: "Done." } },
    ],
    [
      "end_turn without text",
      ended("end_turn", " \n"),
      { kind: "error", code: "agent_failed", reason: "the agent gemini ended its turn without a message" },
    ],
    [
      "refusal",
      ended("refusal", ""),
      {
        kind: "error",
        code: "agent_failed",
        reason: "the agent gemini refused to go on (stop reason refusal)",
      },
    ],
    [
      "max_tokens with a partial message",
      ended("max_tokens", "half a"),
      {
        kind: "error",
        code: "agent_failed",
        reason:
          "the agent gemini ran out of output tokens (stop reason max_tokens); what it wrote is in the turn's activity",
      },
    ],
    [
      "max_turn_requests",
      ended("max_turn_requests", ""),
      {
        kind: "error",
        code: "agent_failed",
        reason:
          "the agent gemini reached its limit of model requests for a turn (stop reason max_turn_requests)",
      },
    ],
    [
      "cancelled unasked",
      ended("cancelled", ""),
      {
        kind: "error",
        code: "agent_failed",
        reason: "the agent gemini cancelled the turn on its own (stop reason cancelled)",
      },
    ],
    [
      "an unknown stop reason",
      ended("tea_break", "x"),
      {
        kind: "error",
        code: "agent_failed",
        reason: "the agent gemini ended its turn with an unknown stop reason tea_break",
      },
    ],
    [
      "a stop",
      { kind: "stopped", ended: "by_the_agent", activity: [] },
      { kind: "error", code: "stopped", reason: "the turn was stopped" },
    ],
    [
      "the time limit",
      { kind: "timed_out", ended: "by_kill", activity: [] },
      { kind: "error", code: "timed_out", reason: "the agent gemini ran past its 90 s limit" },
    ],
    [
      "a failure, sanitised",
      { kind: "failed", reason: `exited with status 1: bad key ${SECRET}`, activity: [] },
      {
        kind: "error",
        code: "agent_failed",
        reason: "the agent gemini exited with status 1: bad key [REDACTED:MODEL_KEY]",
      },
    ],
  ];
  for (const [what, outcome, expected] of cases)
    it(what, () => expect(toTurnResult(outcome, context)).toEqual({ ...expected, activity: [] }));

  it("sanitises the reply and the activity", () => {
    const result = toTurnResult(
      {
        ...ended("end_turn", `key ${SECRET}`),
        activity: [
          {
            at: "2026-01-01T00:00:00.000Z",
            kind: "tool_call",
            data: { title: SECRET, rawInput: { [SECRET]: [SECRET] } },
          },
        ],
      },
      context,
    );
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(result).toMatchObject({
      reply: { body: "key [REDACTED:MODEL_KEY]" },
      activity: [
        {
          data: {
            title: "[REDACTED:MODEL_KEY]",
            rawInput: { "[REDACTED:MODEL_KEY]": ["[REDACTED:MODEL_KEY]"] },
          },
        },
      ],
    });
  });

  it("cuts a reply past 100,000 characters and says so", () => {
    for (const [text, cut] of [
      ["r".repeat(100_001), 0],
      ["r".repeat(100_000), 5],
    ] as const) {
      const result = toTurnResult(ended("end_turn", text, cut), context);
      const body = result.kind === "reply" ? result.reply.body : "";
      expect(body.length).toBeLessThanOrEqual(100_000);
      expect(body).toMatch(/^r+\n\n\[The agent's reply was cut at 100,000 characters\.\]$/);
    }
    const exact = toTurnResult(ended("end_turn", "r".repeat(100_000)), context);
    expect(exact.kind === "reply" && exact.reply.body).toBe("r".repeat(100_000));
  });
});
