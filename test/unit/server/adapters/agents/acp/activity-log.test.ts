// A turn's activity: one record per update, a message's text chunks joined into one record, strings and the whole
// log bounded, the oldest records dropped behind one marker.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import { describe, expect, it } from "vitest";
import { ActivityLog, bound } from "../../../../../../src/server/adapters/agents/acp/activity-log.js";

const at = new Date("2026-11-28T10:00:00.000Z");
const log = (maxChars = 100_000, maxStringChars = 1_000) =>
  new ActivityLog({ maxChars, maxStringChars }, () => at);
const chunk = (
  sessionUpdate: "agent_message_chunk" | "agent_thought_chunk",
  text: string,
  messageId?: string,
) =>
  ({ sessionUpdate, content: { type: "text", text }, ...(messageId ? { messageId } : {}) }) as SessionUpdate;
const tool = (toolCallId: string, title = "Run") =>
  ({ sessionUpdate: "tool_call", toolCallId, title }) as SessionUpdate;

describe("ActivityLog", () => {
  it("joins consecutive text chunks of one message and kind into one record", () => {
    const activity = log();
    activity.addUpdate(chunk("agent_message_chunk", "Hel"));
    activity.addUpdate(chunk("agent_message_chunk", "lo"));
    activity.addUpdate(chunk("agent_thought_chunk", "hmm"));
    activity.addUpdate(chunk("agent_message_chunk", "A", "m1"));
    activity.addUpdate(chunk("agent_message_chunk", "B", "m1"));
    activity.addUpdate(chunk("agent_message_chunk", "C", "m2"));
    activity.addUpdate(tool("t1"));
    activity.addUpdate(chunk("agent_message_chunk", "after"));
    expect(activity.records().map((r) => [r.kind, r.data])).toEqual([
      ["agent_message_chunk", { text: "Hello" }],
      ["agent_thought_chunk", { text: "hmm" }],
      ["agent_message_chunk", { text: "AB", messageId: "m1" }],
      ["agent_message_chunk", { text: "C", messageId: "m2" }],
      ["tool_call", { toolCallId: "t1", title: "Run" }],
      ["agent_message_chunk", { text: "after" }],
    ]);
    expect(activity.records().every((r) => r.at === at.toISOString())).toBe(true);
  });

  it("a record added between chunks ends the joined record", () => {
    const activity = log();
    activity.addUpdate(chunk("agent_message_chunk", "one"));
    activity.add("permission", { outcome: "selected" });
    activity.addUpdate(chunk("agent_message_chunk", "two"));
    expect(activity.records().map((r) => r.kind)).toEqual([
      "agent_message_chunk",
      "permission",
      "agent_message_chunk",
    ]);
  });

  it("cuts every string, joined text included, to the bound and says by how much", () => {
    const activity = log(100_000, 50);
    activity.addUpdate({ ...tool("t1"), rawInput: { file: "z".repeat(120) } } as SessionUpdate);
    for (let i = 0; i < 10; i++) activity.addUpdate(chunk("agent_message_chunk", "0123456789"));
    const [call, text] = activity.records();
    expect((call!.data.rawInput as { file: string }).file).toBe(`${"z".repeat(28)}… [92 more characters]`);
    expect((text!.data.text as string).length).toBe(50);
    expect(text!.data.text).toMatch(/more characters\]$/);
  });

  it("drops the oldest records past the budget behind one marker that counts them", () => {
    const activity = log(2_000);
    for (let i = 0; i < 50; i++) activity.addUpdate(tool(`t${i}`, "x".repeat(50)));
    const records = activity.records();
    expect(records[0]!.kind).toBe("dropped");
    const kept = records.slice(1);
    expect(records[0]!.data.records).toBe(50 - kept.length);
    expect(kept.at(-1)!.data.toolCallId).toBe("t49");
    expect(JSON.stringify(kept).length).toBeLessThanOrEqual(2_000);
  });

  it("keeps only the top-level scalars of a record too big for its share", () => {
    const activity = log(8_000, 1_000);
    activity.addUpdate({
      ...tool("big", "Write many files"),
      status: "completed",
      content: Array.from({ length: 20 }, (_, i) => ({
        type: "diff",
        path: `/f${i}`,
        newText: "n".repeat(900),
      })),
    } as SessionUpdate);
    const [record] = activity.records();
    expect(record!.data).toMatchObject({ toolCallId: "big", title: "Write many files", status: "completed" });
    expect(record!.data.content).toBeUndefined();
    expect(record!.data.truncated).toMatch(/characters of JSON; only its top-level fields are kept$/);
  });
});

describe("bound", () => {
  const cases: [string, number, string][] = [
    ["short", 10, "short"],
    ["exactly10!", 10, "exactly10!"],
    ["a".repeat(200), 100, `${"a".repeat(77)}… [123 more characters]`],
    ["b".repeat(20_000), 10_000, `${"b".repeat(9_975)}… [10025 more characters]`],
    ["too small a bound for the note just cuts", 12, "too small a "],
  ];
  for (const [text, max, expected] of cases)
    it(`${text.length} characters within ${max}`, () => {
      expect(bound(text, max)).toBe(expected);
      expect(bound(text, max).length).toBeLessThanOrEqual(max);
    });
});
